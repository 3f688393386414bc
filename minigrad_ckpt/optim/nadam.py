"""NAdam: Adam with Nesterov momentum and a momentum schedule (PyTorch's rule and defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, check_betas, check_hyper, kernel_flags, scalar_state, update_moments, zeros_state
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam, as PyTorch computes it::

        g = grad (+ weight_decay * p; or p = p * (1 - lr * weight_decay) if decoupled)
        mu_t = b1 * (1 - 0.5 * 0.96^(t * momentum_decay));  prod = prod * mu_t
        m = m + (1 - b1) * (g - m);   v = b2 * v + (1 - b2) * g * g
        denom = sqrt(v / (1 - b2^t)) + eps
        p = p - lr * (1 - mu_t) / (1 - prod) * g / denom
              - lr * mu_{t+1} / (1 - prod * mu_{t+1}) * m / denom

    ``mu_product`` is per-parameter state, a 0-d tensor as PyTorch's: float32 under a float32 default
    dtype, and the product is taken in the tensor's own dtype (a state dict loaded for float64
    parameters makes it float64, as PyTorch's ``load_state_dict`` does).
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "betas", "eps", "weight_decay", "momentum_decay", "decoupled_weight_decay", "maximize",
                  "foreach", "capturable", "differentiable")

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        check_hyper("NAdam", lr=lr, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=check_betas("NAdam", betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, **kernel_flags(
                                          "NAdam", foreach=foreach, maximize=maximize, capturable=capturable,
                                          differentiable=differentiable)))

    scalar_state_keys = ("step", "mu_product")
    scalar_products = ("mu_product",)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "mu_product": 1.0, "exp_avg": zeros_state(p), "exp_avg_sq": zeros_state(p)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (b1, b2), md, t = group["lr"], group["betas"], group["momentum_decay"], state["step"]
        mu = b1 * (1.0 - 0.5 * (0.96 ** (t * md)))
        mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * md)))
        state["mu_product"] = scalar_state(state["mu_product"], mu)  # in its state tensor's dtype
        prod = state["mu_product"]
        m, v = update_moments(state, g, b1, b2)
        # tensor betas or lr: the scalars are computed in their dtype, then read as numbers (PyTorch's values)
        denom = p.device.xp.sqrt(v / as_number(1 - b2**t))
        denom += as_number(group["eps"])  # (a tensor eps as its number: NumPy takes no Tensor)
        p.add_(as_number(-lr * (1.0 - mu) / (1.0 - prod)) * (g / denom))
        p.add_(as_number((-lr * mu_next) / (1.0 - prod * mu_next)) * (m / denom))
