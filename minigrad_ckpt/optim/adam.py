"""Adam and AdamW (decoupled weight decay), PyTorch's update rules and defaults."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..grad_mode import no_grad
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: moments of the gradient, bias-corrected::

        g = grad (+ weight_decay * p for Adam; AdamW decays p itself instead)
        m = m + (1 - b1) * (g - m);   v = b2 * v + (1 - b2) * g * g
        p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    """

    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False) -> None:
        if lr < 0 or eps < 0 or weight_decay < 0:
            raise ValueError(f"{type(self).__name__}: invalid lr={lr}, eps={eps} or weight_decay={weight_decay}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"{type(self).__name__}: betas must be in [0, 1), got {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad))

    @no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad = group["weight_decay"], group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                xp = p.device.xp
                g = p.grad.data
                st = self._state(p)
                if not st:
                    st["step"] = 0
                    st["exp_avg"] = Tensor.constant(xp.zeros_like(p.data), p.device)
                    st["exp_avg_sq"] = Tensor.constant(xp.zeros_like(p.data), p.device)
                    if amsgrad:
                        st["max_exp_avg_sq"] = Tensor.constant(xp.zeros_like(p.data), p.device)
                st["step"] += 1
                t = st["step"]
                if wd:
                    if self._decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        g = g + wd * p.data
                exp_avg, exp_avg_sq = st["exp_avg"], st["exp_avg_sq"]
                m, v = exp_avg.data, exp_avg_sq.data
                exp_avg.add_((1 - b1) * (g - m))  # PyTorch's lerp for weights below 0.5
                exp_avg_sq.mul_(b2).add_((1 - b2) * (g * g))
                step_size = lr / (1 - b1**t)
                bc2_sqrt = math.sqrt(1 - b2**t)
                if amsgrad:
                    vmax = st["max_exp_avg_sq"]
                    vmax.copy_(xp.maximum(vmax.data, v))
                    denom = xp.sqrt(vmax.data) / bc2_sqrt + eps
                else:
                    denom = xp.sqrt(v) / bc2_sqrt + eps
                p.sub_(step_size * (m / denom))


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p = p * (1 - lr * weight_decay)`` before the Adam step."""

    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)
