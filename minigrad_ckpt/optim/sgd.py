"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's update rule::

        g = grad + weight_decay * p
        buf = g                                   (first step)
        buf = momentum * buf + (1 - dampening) * g  (later steps)
        g = g + momentum * buf   if nesterov  else  buf
        p = p - lr * g
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False) -> None:
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: invalid lr={lr}, momentum={momentum} or weight_decay={weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    @no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov = group["weight_decay"], group["nesterov"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d = p.grad.data
                if wd:
                    d = d + wd * p.data
                if mom:
                    st = self._state(p)
                    buf = st.get("momentum_buffer")
                    if buf is None:
                        st["momentum_buffer"] = buf = p.grad.detach().clone()
                        buf.copy_(d)
                    else:
                        buf.mul_(mom).add_((1 - damp) * d)
                    d = d + mom * buf.data if nesterov else buf.data
                p.sub_(lr * d)  # in place (under no_grad): same array, new version stamp
