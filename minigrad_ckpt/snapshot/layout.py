"""An array's memory layout as an axis order, so a snapshot gives arrays back laid out as they were.

Values are not all there is to an array: NumPy (and CuPy) reduce in memory
order, so ``a.sum(axis)`` of two arrays with equal values but different
layouts may differ in the last bit.  The engine leaves some arrays in a
layout other than C order -- a convolution's output is *channel-major*: an
``(N, C, H, W)`` view of a C-contiguous ``(C, N, H, W)`` buffer -- and a tape
restored with its saved arrays in C order replays with other sums.

Such an array is a *permuted C-contiguous* array: for the axis order
``order`` (slowest- to fastest-varying in memory), ``a.transpose(order)`` is
C-contiguous.  A snapshot stores the bytes of that transposed view (the
array's memory as it is, no copy) and ``order`` beside them; loading reads a
C buffer of the transposed shape and returns ``buf.transpose(inverse(order))``:
same shape, same values, same memory layout.  C-contiguous arrays, arrays of
at most one element, and layouts that are no permutation (a strided slice,
negative strides) have no order and are stored in C order, as before.

The functions work on any device's arrays (NumPy, CuPy, the strict stand-in):
they read only ``shape``, ``strides``, ``flags`` and call ``transpose``.
"""

from __future__ import annotations

from typing import Any

from ..backend import to_host

__all__ = ["memory_order", "inverse", "stored_view", "copy_keeping_layout", "host_keeping_layout",
           "device_keeping_layout"]


def memory_order(arr: Any) -> tuple[int, ...] | None:
    """The axis order of ``arr``'s memory if it is permuted C-contiguous but not C-contiguous, else None.

    Axes of length 1 have no place in memory; they are put first (slowest) in
    axis order, so the order depends only on the layout, not on the strides a
    length-1 axis happens to carry.  A C-contiguous array returns at the first
    test: saving one takes exactly the path it always took.
    """
    if arr.flags.c_contiguous or arr.size <= 1:
        return None
    shape, strides = arr.shape, arr.strides
    ones = tuple(k for k in range(arr.ndim) if shape[k] == 1)
    wide = sorted((k for k in range(arr.ndim) if shape[k] > 1), key=lambda k: -strides[k])  # stable
    order = ones + tuple(wide)
    step = arr.dtype.itemsize
    for k in reversed(wide):  # fastest first: each stride must be the size of everything faster
        if strides[k] != step:
            return None
        step *= shape[k]
    return order


def inverse(order: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that undoes ``order``: ``a.transpose(order).transpose(inverse(order))`` is ``a``'s layout."""
    inv = [0] * len(order)
    for position, axis in enumerate(order):
        inv[axis] = position
    return tuple(inv)


def stored_view(arr: Any) -> tuple[Any, tuple[int, ...] | None]:
    """``(view, order)``: the view whose C order is ``arr``'s memory order (``arr`` itself when it
    has no order), and that order.  The view may still need a C copy (a strided slice)."""
    order = memory_order(arr)
    return (arr, None) if order is None else (arr.transpose(order), order)


def copy_keeping_layout(arr: Any) -> Any:
    """A copy of ``arr`` (any device) with the same memory layout; a C copy where it has no order."""
    order = memory_order(arr)
    if order is None:
        return arr.copy()
    return arr.transpose(order).copy().transpose(inverse(order))


def host_keeping_layout(arr: Any) -> Any:
    """``to_host(arr)`` laid out as ``arr`` is.  A device's own host copy makes C order of
    anything (CuPy's ``asnumpy``, the strict device), so the C-contiguous transposed view goes
    across and is transposed back on the host."""
    order = memory_order(arr)
    if order is None:
        return to_host(arr)
    return to_host(arr.transpose(order)).transpose(inverse(order))


def device_keeping_layout(xp: Any, host: Any) -> Any:
    """``xp.asarray(host)`` laid out as ``host`` is (CuPy's ``asarray`` makes C order of a layout
    that is neither C nor Fortran): the C-contiguous transposed view goes across, and is
    transposed back on the device.  On the CPU no copy is made, as with ``asarray``."""
    order = memory_order(host)
    if order is None:
        return xp.asarray(host)
    return xp.asarray(host.transpose(order)).transpose(inverse(order))
