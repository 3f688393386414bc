"""Copies, casts and moves: ``mg.astype``, ``mg.clone``, ``mg.to_device``."""

from __future__ import annotations

from typing import Any

from ..backend import as_dtype, check_memory_format, get_device, is_floating
from ..ops import shape as _sh
from ..ops.device import ToDevice
from ..tape import apply, apply_move
from ..tensor import Tensor
from .arguments import as_tensor

__all__ = ["astype", "clone", "to_device"]


def astype(x: Any, dtype: Any) -> Tensor:
    """Cast to ``dtype``.  Casting to a non-float type cuts the tape (no gradient)."""
    x = as_tensor(x)
    dt = as_dtype(dtype)
    if dt == x.dtype:
        return x
    if not is_floating(dt):
        return apply(_sh.AsType(dtype=dt.name), x.detach())
    return apply(_sh.AsType(dtype=dt.name), x)


def clone(x: Any, *, memory_format: Any = None) -> Tensor:
    """A copy with its own memory (differentiable), in PyTorch's layout: ``preserve_format`` (the
    default) keeps the order of ``x``'s strides (a transpose's copy is a transpose);
    ``mg.contiguous_format`` row-major; ``mg.channels_last`` the channels innermost."""
    x = as_tensor(x)
    check_memory_format("clone", memory_format, x.ndim)
    return apply(_sh.Clone(memory_format=getattr(memory_format, "name", "preserve_format")), x)


def to_device(x: Any, device: Any) -> Tensor:
    """Move to another device (differentiable; see ``docs/devices.md``)."""
    x = as_tensor(x)
    dev = get_device(device)
    if dev is x.device:
        return x
    return apply_move(ToDevice(device=str(dev), source=str(x.device)), x, dev)
