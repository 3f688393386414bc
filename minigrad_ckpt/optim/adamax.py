"""Adamax: Adam with the infinity norm in place of the second moment (PyTorch's rule and defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..grad_mode import no_grad
from ._common import check_betas, check_hyper, zeros_state
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
                 eps: float = 1e-8, weight_decay: float = 0.0) -> None:
        check_hyper("Adamax", lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=check_betas("Adamax", betas), eps=eps,
                                      weight_decay=weight_decay))

    @no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                xp = p.device.xp
                g = p.grad.data
                st = self._state(p)
                if not st:
                    st.update(step=0, exp_avg=zeros_state(p), exp_inf=zeros_state(p))
                st["step"] += 1
                if wd:
                    g = g + wd * p.data
                exp_avg, exp_inf = st["exp_avg"], st["exp_inf"]
                m, u = exp_avg.data, exp_inf.data
                exp_avg.add_((1 - b1) * (g - m))  # in place under no_grad: each update restamps the version
                exp_inf.mul_(b2)
                exp_inf.copy_(xp.maximum(u, xp.abs(g) + eps))
                clr = lr / (1 - b1 ** st["step"])
                p.sub_(clr * (m / u))
