"""Power-average pooling: ``lp_pool1d``, ``lp_pool2d``, ``lp_pool3d`` (PyTorch's compositions).

``(sum over the window of x^p)^(1/p)``, computed as PyTorch computes it: the mean of ``x^p``
over each window (average pooling without padding), times the window's size, to the power
``1/p``; ``sign(s) * relu(|s|)`` in between, as PyTorch's, so a negative window sum (odd ``p``)
gives NaN there as in PyTorch.  ``p = inf`` is the max of ``|x|``.  Every step is a
differentiable function of the engine, so gradients of any order come with them.
"""

from __future__ import annotations

import math
from typing import Any

from ... import functional as mf
from ...functional import _tensor
from ...functional.errors import ComplexNotImplemented
from ...tensor import Tensor
from .activation import relu
from .conv import _ntuple
from .pool3d import avg_pool3d, max_pool3d
from .pooling import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]

_POOLS = {1: (avg_pool1d, max_pool1d), 2: (avg_pool2d, max_pool2d), 3: (avg_pool3d, max_pool3d)}


def _lp_pool(spatial: int, x: Any, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool) -> Tensor:
    avg, mx = _POOLS[spatial]
    x = _tensor(x)
    if norm_type == math.inf:
        return mx(mf.abs(x), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -mx(-mf.abs(x), kernel_size, stride, 0, 1, ceil_mode)
    if x.dtype.kind == "c":  # x ** p of a complex x is no |x| ** p (p = inf above takes |x|, as PyTorch's)
        raise ComplexNotImplemented(f"lp_pool{spatial}d: complex input is not supported for a finite norm_type "
                                    f"(as PyTorch's); pool mg.abs(z) instead")
    out = avg(mf.power(x, norm_type), kernel_size, stride, 0, ceil_mode)
    size = math.prod(_ntuple(kernel_size, spatial, "kernel_size", f"lp_pool{spatial}d"))
    return mf.power(mf.sign(out) * relu(mf.abs(out)) * size, 1.0 / norm_type)


def lp_pool1d(input: Any, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of the last axis of (N, C, L) or (C, L)."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Any, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of (N, C, H, W) or (C, H, W)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Any, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of (N, C, D, H, W) or (C, D, H, W)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
