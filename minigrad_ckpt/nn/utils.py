"""Training utilities: gradient clipping."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False) -> Tensor:
    """Scale gradients in place so their joint norm is at most ``max_norm``.

    Returns the total norm before clipping (a 0-d tensor), as PyTorch does:
    ``clip_coef = max_norm / (total_norm + 1e-6)``, applied when below 1.
    """
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        from ..creation import tensor

        return tensor(0.0)
    xp = grads[0].device.xp
    norm_type = float(norm_type)
    with no_grad():
        if math.isinf(norm_type):
            norms = [xp.max(xp.abs(g.data)) for g in grads]
            total = xp.max(xp.stack(norms))
        else:
            # in the gradients' dtype, as PyTorch does (a float32-only device has no float64)
            norms = [xp.sum(xp.abs(g.data) ** norm_type) for g in grads]
            total = xp.sum(xp.stack(norms)) ** (1.0 / norm_type)
        total_t = Tensor._wrap(total.astype(grads[0].dtype), None, grads[0].device)
        total_host = xp.scalar(total)  # the one device-to-host read: is clipping needed?
        if error_if_nonfinite and not math.isfinite(total_host):
            raise RuntimeError(f"the total norm of order {norm_type} of the gradients is non-finite")
        coef = max_norm / (total_host + 1e-6)
        if coef < 1:
            for g in grads:
                g.mul_(coef)
    return total_t


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad.data[...] = p.grad.device.xp.clip(p.grad.data, -clip_value, clip_value)
                p.grad._bump_version()
