"""RAdam: Adam with a rectified adaptive learning rate (PyTorch's rule and defaults)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, check_betas, check_hyper, kernel_flags, update_moments, zeros_state
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam, as PyTorch computes it::

        g = grad (+ weight_decay * p; or p = p * (1 - lr * weight_decay) if decoupled)
        m = m + (1 - b1) * (g - m);   v = b2 * v + (1 - b2) * g * g
        rho_inf = 2 / (1 - b2) - 1;   rho_t = rho_inf - 2 t b2^t / (1 - b2^t)
        rho_t > 5:  p = p - lr * m / (1 - b1^t) * sqrt(1 - b2^t) / (sqrt(v) + eps) * r_t
                    with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        else:       p = p - lr * m / (1 - b1^t)      (the variance is not yet tractable)
    """

    # PyTorch's order of the defaults
    group_keys = ("lr", "betas", "eps", "weight_decay", "maximize", "foreach", "capturable",
                  "decoupled_weight_decay", "differentiable")

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_hyper("RAdam", lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=check_betas("RAdam", betas), eps=eps,
                                      weight_decay=weight_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      **kernel_flags("RAdam", foreach=foreach, maximize=maximize,
                                                     capturable=capturable, differentiable=differentiable)))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "exp_avg": zeros_state(p), "exp_avg_sq": zeros_state(p)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (b1, b2), t = group["lr"], group["betas"], state["step"]
        m, v = update_moments(state, g, b1, b2)
        bc1, bc2 = 1 - b1**t, 1 - b2**t
        m_hat = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * (b2**t) / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            denom = p.device.xp.sqrt(v)
            denom += group["eps"]
            p.sub_(m_hat * as_number(lr) * ((bc2**0.5) / denom) * rect)  # (a tensor lr as its number: see Adam)
        else:
            p.sub_(m_hat * as_number(lr))
