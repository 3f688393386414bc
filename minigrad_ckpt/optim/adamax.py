"""Adamax: Adam with the infinity norm in place of the second moment (PyTorch's rule and defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, check_betas, check_hyper, kernel_flags, zeros_state
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax, as PyTorch computes it::

        g = grad (+ weight_decay * p)
        m = m + (1 - b1) * (g - m)
        u = max(b2 * u, |g| + eps)
        p = p - lr / (1 - b1^t) * m / u
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_hyper("Adamax", lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=check_betas("Adamax", betas), eps=eps,
                                      weight_decay=weight_decay, **kernel_flags(
                                          "Adamax", foreach=foreach, maximize=maximize,
                                          differentiable=differentiable, capturable=capturable)))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "exp_avg": zeros_state(p), "exp_inf": zeros_state(p)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        xp = p.device.xp
        (b1, b2), exp_avg, exp_inf = group["betas"], state["exp_avg"], state["exp_inf"]
        m, u = exp_avg._data, exp_inf._data
        # in place under no_grad: each update restamps the version; a tensor beta's weight as its number (a 0-d
        # tensor would round a 0-d parameter's update, NumPy scalars, to float32; see update_moments)
        exp_avg.add_(as_number(1 - b1) * (g - m))
        exp_inf.mul_(b2)
        exp_inf.copy_(xp.maximum(u, xp.abs(g) + as_number(group["eps"])))  # (NumPy takes no Tensor eps)
        clr = group["lr"] / (1 - b1 ** state["step"])
        p.sub_(as_number(clr) * (m / u))  # (a tensor lr as its number: see Adam)
