"""RAdam: Adam with a rectified adaptive learning rate (PyTorch's rule and defaults)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..grad_mode import no_grad
from ._common import check_betas, check_hyper, zeros_state
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

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, decoupled_weight_decay: bool = False) -> None:
        check_hyper("RAdam", lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=check_betas("RAdam", betas), eps=eps,
                                      weight_decay=weight_decay, decoupled_weight_decay=decoupled_weight_decay))

    @no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
            wd, decoupled = group["weight_decay"], group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                xp = p.device.xp
                g = p.grad.data
                st = self._state(p)
                if not st:
                    st.update(step=0, exp_avg=zeros_state(p), exp_avg_sq=zeros_state(p))
                st["step"] += 1
                t = st["step"]
                if wd:
                    if decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        g = g + wd * p.data
                exp_avg, exp_avg_sq = st["exp_avg"], st["exp_avg_sq"]
                m, v = exp_avg.data, exp_avg_sq.data
                exp_avg.add_((1 - b1) * (g - m))  # in place under no_grad: each update restamps the version
                exp_avg_sq.mul_(b2).add_((1 - b2) * (g * g))
                bc1, bc2 = 1 - b1**t, 1 - b2**t
                m_hat = m / bc1
                rho_inf = 2 / (1 - b2) - 1
                rho_t = rho_inf - 2 * t * (b2**t) / bc2
                if rho_t > 5.0:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    denom = xp.sqrt(v)
                    denom += eps
                    p.sub_(m_hat * lr * ((bc2**0.5) / denom) * rect)
                else:
                    p.sub_(m_hat * lr)
