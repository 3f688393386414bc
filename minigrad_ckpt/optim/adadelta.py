"""Adadelta: step sizes from running averages of squared gradients and squared updates
(Zeiler 2012; PyTorch's rule and defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, check_hyper, kernel_flags, zeros_state
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta, as PyTorch computes it::

        g = grad (+ weight_decay * p)
        v = rho * v + (1 - rho) * g * g                   # square_avg
        delta = sqrt(u + eps) / sqrt(v + eps) * g         # u: acc_delta
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta

    ``lr`` scales the update (PyTorch's default 1.0, the paper's rule).
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "rho", "eps", "weight_decay", "maximize", "capturable", "foreach", "differentiable")

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_hyper("Adadelta", lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Adadelta: Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, **kernel_flags(
            "Adadelta", foreach=foreach, capturable=capturable, maximize=maximize, differentiable=differentiable)))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "square_avg": zeros_state(p), "acc_delta": zeros_state(p)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        xp, rho, eps = p.device.xp, group["rho"], as_number(group["eps"])  # (NumPy takes no Tensor eps)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).add_((1 - rho) * g * g)  # in place under no_grad: restamped
        std = xp.sqrt(square_avg._data + eps)
        delta = xp.sqrt(acc_delta._data + eps) / std * g
        acc_delta.mul_(rho).add_((1 - rho) * delta * delta)
        p.add_(-as_number(group["lr"]) * delta)  # (a tensor lr as its number: see Adam)
