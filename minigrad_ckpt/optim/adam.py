"""Adam and AdamW (decoupled weight decay), PyTorch's update rules and defaults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..backend import host_numpy
from ..tensor import Tensor
from ._common import (
    as_number,
    as_one_value,
    check_betas,
    check_hyper,
    check_lr_elements,
    kernel_flags,
    plain_number,
    refuse_complex_when_fused,
    update_moments,
    zeros_state,
)
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: moments of the gradient, bias-corrected::

        g = grad (+ weight_decay * p for Adam; AdamW decays p itself instead)
        m = m + (1 - b1) * (g - m);   v = b2 * v + (1 - b2) * g * g
        p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach", "capturable",
                  "differentiable", "fused", "decoupled_weight_decay")

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        name = type(self).__name__
        _check_tensor_lr(lr, foreach, capturable)
        check_hyper(name, lr=lr, eps=eps, weight_decay=weight_decay)
        betas = check_betas(name, betas)
        _check_beta_types(betas, foreach, capturable)
        betas = tuple(as_one_value(b) for b in betas)  # PyTorch's group keeps a one-element beta 0-d
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, **kernel_flags(
                                          name, foreach=foreach, maximize=maximize, capturable=capturable,
                                          differentiable=differentiable, fused=fused),
                                      decoupled_weight_decay=decoupled_weight_decay))

    def check_complex_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        refuse_complex_when_fused(self, p, group)  # PyTorch checks each parameter as its state is made

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = {"step": 0, "exp_avg": zeros_state(p), "exp_avg_sq": zeros_state(p)}
        if group["amsgrad"]:
            st["max_exp_avg_sq"] = zeros_state(p)
        return st

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        if group.get("foreach") and isinstance(group["lr"], Tensor) and not group.get("capturable"):
            # PyTorch's check at each step: a tensor lr put into a foreach group after construction
            raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
        xp = p.device.xp
        lr, eps, t = group["lr"], group["eps"], state["step"]
        # a one-element tensor beta of any shape is one value, as PyTorch's Adam squeezes it (its
        # OptimizerInfo steps betas of shapes (1, 1, 1) and (1, 1)), here too when put into the group
        # after construction: kept as it is, it broadcast a parameter of fewer dimensions to its own
        # and the in-place moment update refused the shape
        b1, b2 = (as_one_value(b) for b in group["betas"])
        m, v = update_moments(state, g, b1, b2)
        step_size = lr / (1 - b1**t)
        # PyTorch's power, in a tensor beta's dtype when betas are tensors, then read as its number: PyTorch
        # divides by the 0-d tensor, where an array divided by a Tensor is reciprocal(tensor) * array (rounded
        # twice; float64 parameters stepped 1e-8 away from PyTorch's)
        bc2_sqrt = as_number((1 - b2**t) ** 0.5)
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]
            vmax.copy_(xp.maximum(vmax._data, v))
            denom = xp.sqrt(vmax._data) / bc2_sqrt + eps
        else:
            denom = xp.sqrt(v) / bc2_sqrt + eps
        p.sub_(as_number(step_size) * (m / denom))  # (a tensor lr as its number: a 0-d m / denom is a
        # NumPy scalar, which a float32 0-d tensor would narrow to float32; PyTorch passes it as a double)

    def piecewise_rule(self, state: dict[str, Any], group: dict[str, Any]) -> Any:
        """:meth:`update_one` on arrays (see :meth:`Optimizer.piecewise_rule`), for number hyper-parameters."""
        lr, eps, t = group["lr"], group["eps"], state["step"]
        b1, b2 = group["betas"]
        if not all(plain_number(x) for x in (lr, eps, b1, b2)):
            return None
        step_size, bc2_sqrt = lr / (1 - b1**t), (1 - b2**t) ** 0.5
        amsgrad = group["amsgrad"]

        def rule(g: Any, p: Any, state: dict[str, Any]) -> None:
            m, v = state["exp_avg"], state["exp_avg_sq"]
            m += (1 - b1) * (g - m)
            v *= b2
            v += (1 - b2) * (g * g)
            if amsgrad:
                v = host_numpy.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
            p -= step_size * (m / (host_numpy.sqrt(v) / bc2_sqrt + eps))

        keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
        return rule, {k: state[k] for k in keys}


def _check_tensor_lr(lr: Any, foreach: bool | None, capturable: bool) -> None:
    """PyTorch's refusals of a tensor lr, before the range checks: its foreach kernels take one only
    when capturable."""
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_lr_elements(lr)


def _check_beta_types(betas: tuple[Any, Any], foreach: bool | None, capturable: bool) -> None:
    """PyTorch's rule after the range checks: betas are both floats or both tensors (an int beta is
    neither: ``betas=(0, 0.99)`` is refused there too), tensor betas only when the kernel takes them."""
    if not (all(isinstance(x, float) for x in betas) or all(isinstance(x, Tensor) for x in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas):
        if isinstance(beta, Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p = p * (1 - lr * weight_decay)`` before the Adam step."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """As Adam's, but the groups stay decoupled: a state saved by ``Adam`` (which says
        ``decoupled_weight_decay=False``) loads into AdamW as AdamW, as in PyTorch."""
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
