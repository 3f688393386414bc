"""Gradient clipping (PyTorch's ``torch.nn.utils.clip_grad``): the joint norm of the gradients
(``get_total_norm``), scaled to at most ``max_norm`` (``clip_grad_norm_``, ``clip_grads_with_norm_``),
or each element clamped (``clip_grad_value_``); :mod:`minigrad_ckpt.nn.utils` offers them too."""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable
from typing import Any

from ...backend import host_numpy
from ...grad_mode import no_grad
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale gradients in place so their joint norm is at most ``max_norm``.

    Returns the total norm before clipping (a 0-d tensor), as PyTorch does, and is PyTorch's
    two halves: :func:`get_total_norm` of the gradients (any order ``vector_norm`` takes:
    ``0``, ``-inf`` and fractional too; the norms of tensors of several dtypes joined in the
    promoted dtype), then :func:`clip_grads_with_norm_` (``max_norm / (total_norm + 1e-6)``,
    applied when below 1). PyTorch's ``foreach`` picks its kernels (one per tensor or grouped),
    not the result: accepted, and it changes nothing. An empty generator (``model.parameters()``
    already iterated) gets PyTorch's warning that nothing is clipped.
    """
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    if not params and isinstance(parameters, types.GeneratorType):  # (model.parameters() read up already)
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                      stacklevel=stacklevel_outside_the_engine())
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """PyTorch's deprecated spelling of :func:`clip_grad_norm_`, with its FutureWarning."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=stacklevel_outside_the_engine())
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def get_total_norm(tensors: Iterable[Tensor] | Tensor, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` taken as one vector (PyTorch 2.6's first half of
    :func:`clip_grad_norm_`): the norm of each, then the norm of those norms, outside the tape.

    Usually called on gradients, ``get_total_norm([p.grad for p in params])``, so a program can
    all-reduce or log the norm before :func:`clip_grads_with_norm_` scales by it. Any order
    ``torch.linalg.vector_norm`` takes (``inf``, ``-inf``, ``0``, fractional); no tensors give
    ``tensor(0.)``. ``foreach`` as in :func:`clip_grad_norm_`.
    """
    from ...functional.linalg_derived import vector_norm
    from ...functional.shape import stack

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        from ...creation import tensor

        return tensor(0.0)
    first_device = tensors[0].device
    with no_grad():
        # each tensor's norm on its own device, joined on the first one's, as PyTorch's
        norms = [vector_norm(t, norm_type).to(first_device) for t in tensors]
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                           f"so it cannot be clipped. To disable this error and scale the gradients by the "
                           f"non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Iterable[Tensor] | Tensor, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every gradient in place by ``min(max_norm / (total_norm + 1e-6), 1)`` (PyTorch 2.6's
    second half of :func:`clip_grad_norm_`, with a norm computed beforehand, e.g. by
    :func:`get_total_norm` and summed across workers). ``total_norm`` is a tensor, as PyTorch requires."""
    if not isinstance(total_norm, Tensor):
        raise TypeError(f"clip_grads_with_norm_: total_norm must be a Tensor, got {type(total_norm).__name__}")
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    # an infinite total norm makes the coefficient 0, and an infinite gradient times 0 PyTorch's NaN,
    # silently (NumPy would warn; CuPy never does)
    with no_grad(), host_numpy.errstate(invalid="ignore"):
        # always multiplied (by 1 when not clipping), as PyTorch: no device-to-host read to decide
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:  # the coefficient goes to each gradient's device (they may differ)
            g.mul_(coef.to(device=g.device, dtype=g.dtype))


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place (real gradients:
    a complex one has no order to clamp in, and is refused as PyTorch does); ``foreach`` as in
    :func:`clip_grad_norm_`."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    clip_value = float(clip_value)  # PyTorch's first line: a 0-d tensor (any device) is read as its number
    complex_grads = [p.grad.dtype for p in params if p.grad is not None and p.grad.dtype.kind == "c"]
    if complex_grads:  # NumPy's clip would order complex numbers lexicographically: 3+4j -> 1+0j
        raise TypeError(f"clip_grad_value_: a {complex_grads[0]} gradient has no order to clamp in; "
                        f"clip its norm instead (clip_grad_norm_)")
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad.copy_(p.grad.device.xp.clip(p.grad._data, -clip_value, clip_value))
