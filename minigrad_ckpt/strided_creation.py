"""Creation in a given memory: ``mg.empty_strided``, ``mg.empty_permuted`` and ``mg.frombuffer``.

An mg tensor is a NumPy (or CuPy) array, and an array has strides of its own, which
``x.stride()`` reads: ``empty_strided(size, stride)`` makes a zero-filled buffer just long
enough for the strides asked and views it with them (``np.lib.stride_tricks.as_strided``), so
``x.stride()`` answers what was asked, as PyTorch's does -- a zero stride repeats an element,
and a write there reaches every place that shares it, as in PyTorch.  ``empty_permuted(size,
physical_layout)`` is the row-major buffer of the dims in ``physical_layout``'s order, seen in
``size``'s order.  ``frombuffer`` shares the memory of any object of Python's buffer protocol
(``bytearray``, ``array.array``, ``memoryview``): a write into either changes both; a read-only
buffer (``bytes``) is shared all the same, with PyTorch's warning that writes would be undefined.
The values of the "empty" ones are zeros here, so nothing of other memory leaks.
"""

from __future__ import annotations

import warnings
from typing import Any

from .backend import as_dtype, check_layout, get_default_dtype, get_device, host_numpy
from .creation import pinned_as_asked
from .settings import warn_once
from .tensor import Tensor, requires_grad_flag
from .user_frame import stacklevel_outside_the_engine

__all__ = ["empty_strided", "empty_permuted", "frombuffer"]


def _made(arr: Any, dev: Any, requires_grad: Any) -> Tensor:
    t = Tensor.constant(arr, dev)  # (no copy: the strides and the shared memory stay)
    return t.requires_grad_() if requires_grad_flag(requires_grad) else t


def _ints(name: str, values: Any) -> tuple[int, ...]:
    values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{name} must be a tuple of ints, got {values!r}")
    return values


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A zero-filled tensor of shape ``size`` whose ``stride()`` is ``stride`` (in elements).

    >>> mg.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    check_layout("empty_strided", layout)
    size, stride = _ints("size", size), _ints("stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
                           f" (negative strides are not offered, as PyTorch's)")
    dev = get_device(device)
    dt = as_dtype(dtype) if dtype is not None else get_default_dtype()
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    buffer = dev.xp.zeros(extent, dtype=dt)
    strides = tuple(s * dt.itemsize for s in stride)
    arr = dev.xp.as_strided(buffer, size, strides, writeable=True)
    made = _made(arr, dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("empty_strided", made, pin_memory)


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                   requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A zero-filled tensor of shape ``size`` laid out in memory in the dims' order
    ``physical_layout`` (outermost first): ``empty_permuted((2, 3, 4), (0, 2, 1)).stride()`` is
    ``(12, 1, 3)``, dim 1 innermost."""
    check_layout("empty_permuted", layout)
    size, order = _ints("size", size), _ints("physical_layout", physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    if sorted(order) != list(range(len(size))):
        raise RuntimeError("Duplicate dim not allowed" if len(set(order)) < len(order) else
                           f"Dimension out of range in physical_layout {list(order)}")
    dev = get_device(device)
    dt = as_dtype(dtype) if dtype is not None else get_default_dtype()
    physical = dev.xp.zeros(tuple(size[d] for d in order), dtype=dt)
    inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
    made = _made(physical.transpose(inverse), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("empty_permuted", made, pin_memory)


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D CPU tensor sharing ``buffer``'s memory: ``count`` elements of ``dtype`` (-1: all)
    from byte ``offset``, with PyTorch's checks of the lengths."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    dt, length = as_dtype(dtype), view.nbytes
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % dt.itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({dt.itemsize})")
        count = (length - offset) // dt.itemsize
    elif count * dt.itemsize > length - offset:
        raise ValueError(f"requested buffer length ({count} * {dt.itemsize} bytes) after offset ({offset} bytes) "
                         f"must not be greater than actual buffer length ({length} bytes)")
    if view.readonly and warn_once("frombuffer of a read-only buffer"):  # (once a process, as its words say)
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
                      "You may want to copy the buffer to protect its data or make it writable before converting "
                      "it to a tensor. This type of warning will be suppressed for the rest of this program.",
                      UserWarning, stacklevel=stacklevel_outside_the_engine())
    arr = host_numpy.frombuffer(buffer, dtype=dt, count=count, offset=offset)
    return _made(arr, get_device("cpu"), requires_grad)
