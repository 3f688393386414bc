"""RMSprop: divide the gradient by a running root mean square (PyTorch's rule and defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..backend import host_numpy
from ..tensor import Tensor
from ._common import as_number, check_hyper, kernel_flags, plain_number, zeros_state
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, as PyTorch computes it::

        g = grad (+ weight_decay * p)
        v = alpha * v + (1 - alpha) * g * g
        centered:  gbar = gbar + (1 - alpha) * (g - gbar);  avg = sqrt(v - gbar^2) + eps
        else:      avg = sqrt(v) + eps
        momentum:  buf = momentum * buf + g / avg;  p = p - lr * buf
        else:      p = p - lr * g / avg
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "momentum", "alpha", "eps", "centered", "weight_decay", "capturable", "foreach",
                  "maximize", "differentiable")

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_hyper("RMSprop", lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, **kernel_flags(
                                          "RMSprop", capturable=capturable, foreach=foreach, maximize=maximize,
                                          differentiable=differentiable)))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = {"step": 0, "square_avg": zeros_state(p)}
        if group["momentum"] > 0:
            st["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            st["grad_avg"] = zeros_state(p)
        return st

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        xp, alpha, mom = p.device.xp, group["alpha"], group["momentum"]
        state["square_avg"].mul_(alpha).add_((1 - alpha) * (g * g))  # in place under no_grad: restamped
        v = state["square_avg"]._data
        if group["centered"]:
            ga = state["grad_avg"]._data
            state["grad_avg"].add_((1 - alpha) * (g - ga))  # PyTorch's lerp for weights below 0.5
            avg = xp.sqrt(v - ga * ga)
        else:
            avg = xp.sqrt(v)
        avg += as_number(group["eps"])  # (a tensor eps as its number: NumPy takes no Tensor)
        if mom > 0:
            buf = state["momentum_buffer"]
            buf.mul_(mom).add_(g / avg)
            p.sub_(as_number(group["lr"]) * buf._data)
        else:
            p.sub_(as_number(group["lr"]) * (g / avg))  # (a tensor lr as its number: see Adam)

    def piecewise_rule(self, state: dict[str, Any], group: dict[str, Any]) -> Any:
        """:meth:`update_one` on arrays (see :meth:`Optimizer.piecewise_rule`), for number hyper-parameters."""
        alpha, mom, lr, eps, centered = group["alpha"], group["momentum"], group["lr"], group["eps"], group["centered"]
        if not all(plain_number(x) for x in (alpha, mom, lr, eps)):
            return None
        keys = ("square_avg",) + (("grad_avg",) if centered else ()) + (("momentum_buffer",) if mom > 0 else ())
        if any(state.get(k) is None for k in keys):
            return None

        def rule(g: Any, p: Any, state: dict[str, Any]) -> None:
            v = state["square_avg"]
            v *= alpha
            v += (1 - alpha) * (g * g)
            if centered:
                ga = state["grad_avg"]
                ga += (1 - alpha) * (g - ga)
                avg = host_numpy.sqrt(v - ga * ga)
            else:
                avg = host_numpy.sqrt(v)
            avg += eps
            if mom > 0:
                buf = state["momentum_buffer"]
                buf *= mom
                buf += g / avg
                p -= lr * buf
            else:
                p -= lr * (g / avg)

        return rule, {k: state[k] for k in keys}
