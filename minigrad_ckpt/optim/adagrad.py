"""Adagrad: per-coordinate step sizes from the sum of squared gradients (PyTorch's rule and defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..nn.uninitialized import is_lazy
from ..tensor import Tensor
from ._common import as_number, check_hyper, kernel_flags, refuse_complex_when_fused, zeros_state
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, as PyTorch computes it::

        g = grad (+ weight_decay * p)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g                  (s starts at the optimizer's initial_accumulator_value)
        p = p - clr * g / (sqrt(s) + eps)
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "lr_decay", "eps", "weight_decay", "initial_accumulator_value", "foreach", "maximize",
                  "differentiable", "fused")

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        check_hyper("Adagrad", lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                    initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, eps=eps,
                                      **kernel_flags("Adagrad", foreach=foreach, maximize=maximize,
                                                     differentiable=differentiable, fused=fused)))
        # PyTorch creates the state at construction (so it exists before the first step); a lazy
        # layer's uninitialized parameter has no shape yet, and gets its state at its first step
        for group in self.param_groups:
            for p in group["params"]:
                if not is_lazy(p):
                    self.state[p] = self._initial_state(p, group)

    def check_complex_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        refuse_complex_when_fused(self, p, group, RuntimeError("`fused` does not support sparse grad or complex param"))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        # PyTorch fills the sum with the optimizer's initial_accumulator_value, at construction and for a
        # group added later alike: a group's own value is kept in the group but never read
        return {"step": 0, "sum": zeros_state(p, self.defaults["initial_accumulator_value"])}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        state["sum"].add_(g * g)  # in place under no_grad: each update restamps the version
        std = p.device.xp.sqrt(state["sum"]._data)
        std += as_number(group["eps"])  # (a tensor eps as its number: NumPy takes no Tensor)
        p.sub_(as_number(clr) * (g / std))  # (a tensor lr as its number: see Adam)
