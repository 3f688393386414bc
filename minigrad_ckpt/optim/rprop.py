"""Rprop: resilient backpropagation -- a step size per weight, grown or shrunk by the gradient's sign."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..ops.elementwise import abs_slope
from ..tensor import Tensor
from ._common import as_one_value, check_lr_elements, kernel_flags, zeros_state
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop, as PyTorch computes it (each step size starts at ``lr``)::

        s = sign(g * prev):  etaplus where s > 0, etaminus where s < 0, 1 where s == 0 (sign is 0 at NaN)
        step_size = clamp(step_size * s, *step_sizes)
        g = 0 where the sign flipped (s == etaminus);  p = p - sign(g) * step_size;  prev = g

    Only the gradient's sign is used, so the rule suits full-batch training.
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "etas", "step_sizes", "foreach", "maximize", "differentiable", "capturable")

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_lr_elements(lr)
        if not lr >= 0.0:
            raise ValueError(f"Rprop: Invalid learning rate: {lr}")
        etaminus, etaplus = etas
        if not 0.0 < etaminus < 1.0 < etaplus:
            raise ValueError(f"Rprop: Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), **kernel_flags(
            "Rprop", capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "prev": zeros_state(p), "step_size": zeros_state(p, as_one_value(group["lr"]))}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        xp = p.device.xp
        (etaminus, etaplus), (lo, hi) = group["etas"], group["step_sizes"]
        # torch.sign is 0 at NaN (NumPy's is NaN): a NaN gradient, or an inf one after a 0 (inf * 0), keeps the
        # step size and moves nothing, as PyTorch's Rprop
        sign = abs_slope(xp, g * state["prev"]._data)
        # PyTorch's three writes (> 0, < 0, == 0) as selections: NumPy's arithmetic on a 0-d parameter gives a
        # scalar, which takes no item assignment
        # (sign + 1 is the 1 where sign is 0, in the gradient's dtype: three Python numbers would give float64)
        factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, sign + 1))
        step_size = state["step_size"]
        step_size.copy_(xp.clip(step_size._data * factor, lo, hi))
        g = xp.where(factor == etaminus, 0, g)  # a sign flip: no step now, and no flip counted next time
        p.sub_(abs_slope(xp, g) * step_size._data)
        state["prev"].copy_(g)
