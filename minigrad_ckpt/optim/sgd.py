"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, check_lr_elements, invalid, kernel_flags, refuse_complex_when_fused
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

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        check_lr_elements(lr)
        for key, value in (("lr", lr), ("momentum", momentum), ("weight_decay", weight_decay)):
            if value < 0:  # PyTorch's SGD test: a NaN passes
                raise ValueError(invalid("SGD", key, value))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      **kernel_flags("SGD", maximize=maximize, foreach=foreach,
                                                     differentiable=differentiable, fused=fused)))

    def check_complex_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        part = "Float" if p.dtype.itemsize == 8 else "Double"
        refuse_complex_when_fused(self, p, group, NotImplementedError(
            f'"fused_sgd_kernel" not implemented for \'Complex{part}\''))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        # the buffer is the first step's gradient itself, made in update_one
        return {"momentum_buffer": None} if group["momentum"] else {}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        mom = group["momentum"]
        if mom:
            buf = state["momentum_buffer"]
            if buf is None:
                state["momentum_buffer"] = buf = p.grad.detach().clone()
                buf.copy_(g)
            else:
                dampening = group["dampening"]  # (none: g itself, as x * 1 is x -- one pass and temporary fewer)
                buf.mul_(mom).add_((1 - dampening) * g if dampening else g)
            g = g + mom * buf._data if group["nesterov"] else buf._data
        p._sub_scaled_(g, as_number(group["lr"]))  # in place (under no_grad): same array, new version stamp
        # (a tensor lr as its number, as PyTorch's: a (1,)-shaped one would widen a 0-d parameter)
