"""``interpolate`` (PyTorch's ``F.interpolate``/``nn.Upsample``): resampling of the spatial
axes of (N, C, L), (N, C, H, W) or (N, C, D, H, W) input, with PyTorch's source positions.

Every mode is separable: each spatial axis is resampled in turn as a weighted sum of a few
*taps*, ``sum_k w_k * take(x, i_k, axis)``, with integer positions ``i_k`` and weights
``w_k`` computed on the host from the sizes alone:

=================  =====  =====================================================
mode               taps   source position of output ``j`` (``s`` = the scale)
=================  =====  =====================================================
``nearest``        1      ``floor(j s)`` (in float32, as PyTorch)
``nearest-exact``  1      ``floor((j + 1/2) s)``
``linear`` family  2      ``(j + 1/2) s - 1/2`` clamped at 0, or ``j (n-1)/(m-1)``
                          with ``align_corners``; weights ``1 - t``, ``t``
``bicubic``        4      as linear, unclamped; Keys' cubic with ``A = -0.75``,
                          taps clamped to the edge
``area``           window the adaptive-average windows, weights ``1 / length``
=================  =====  =====================================================

As PyTorch's CPU kernels, an axis whose length does not change is copied in the linear family
and 2-D ``nearest`` (whatever ``scale_factor``), and 2-D ``nearest`` doubling an axis takes ``j // 2``.

So the result is a composition of ``take`` and products (differentiable to any order, in
both modes), and a non-finite input reaches only the outputs whose taps read it.

The positions and weights are computed in the precision PyTorch's CPU kernels compute them in:
float64 for float64 input, float32 for every narrower float (its ``opmath`` type).  A float32
position is not float64's rounded: ``(j + 1/2) s - 1/2`` near 60 carries an error of 4e-6, so
weights from float64 positions moved a 60x80 image resized to 300x300 by 7e-6 of its range.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...functional.errors import DtypeNotImplemented, ModeNotImplemented, RefusedArgument
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .result_layout import as_pytorch_lays_out

__all__ = [
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
]

_SPATIAL = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_CUBIC_A = -0.75


def _is_integer(s: Any) -> bool:
    """A size PyTorch takes: a Python or NumPy int, or an integer Tensor holding one number."""
    if isinstance(s, Tensor):
        return s.dtype.kind in "iub" and s.numel() == 1
    return isinstance(s, (int, np.integer))


def _output_sizes(name: str, spatial: tuple[int, ...], size: Any, scale_factor: Any) -> tuple[list[int], list]:
    """The output sizes, and the scale factors PyTorch keeps for the source positions."""
    n = len(spatial)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{name}: give exactly one of size and scale_factor")
    if size is not None:
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * n
        if len(sizes) != n:
            raise ValueError(f"{name}: size must be {n} int(s) for input of {n} spatial axes, got {size}")
        if not all(_is_integer(s) for s in sizes):
            # int() would truncate a size of 2.5 to 2 without a word; PyTorch refuses any non-integer
            raise TypeError(f"{name}: expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            f"Tuple[int, int, int], but got size with types {[type(s) for s in sizes]}")
        sizes = [int(s) for s in sizes]
        return sizes, [None] * n
    factors = [float(scale_factor)] * n if isinstance(scale_factor, (int, float)) else [float(f) for f in scale_factor]
    if len(factors) != n:
        raise ValueError(f"{name}: scale_factor must be {n} number(s) for input of {n} spatial axes, got "
                         f"{scale_factor}")
    return [int(math.floor(s * f)) for s, f in zip(spatial, factors)], factors


def _check_sizes(name: str, spatial: tuple[int, ...], sizes: list[int], mode: str) -> None:
    """PyTorch's kernels' RuntimeError for an empty input axis or an output size below 1 (a size 0,
    a scale factor of 0 or below, or one that rounds an axis down to nothing).  ``area`` is PyTorch's
    adaptive average pool, which takes an output size of 0 and answers an empty axis."""
    if min(spatial) < 1 or min(sizes) < (0 if mode == "area" else 1):
        raise RefusedArgument(f"{name}: Input and output sizes should be greater than 0, but got input "
                              f"{tuple(spatial)} output {tuple(sizes)}")


def _position_dtype(dtype: Any) -> Any:
    """The NumPy type PyTorch's kernels compute source positions and weights in for ``dtype`` input."""
    return np.float64 if dtype == np.float64 else np.float32


def _linear_scale(n_in: int, n_out: int, align_corners: bool, factor: float | None, ct: Any = np.float64) -> Any:
    """The source step, in ``ct`` as PyTorch's ``area_pixel_compute_scale``: a ratio of the sizes
    divided in ``ct``, or ``1 / scale_factor`` divided in float64 and then rounded to ``ct``."""
    if align_corners:
        return ct(n_in - 1) / ct(n_out - 1) if n_out > 1 else ct(0.0)
    return ct(1.0 / factor) if factor is not None else ct(n_in) / ct(n_out)


def _keeps_axis(mode: str, n_in: int, n_out: int, factor: float | None, spatial: int) -> bool:
    """Whether PyTorch's CPU kernel copies an axis whose length does not change, whatever the
    ``scale_factor`` (1.3 on a length-3 axis gives length 3): the linear family's kernels and the
    2-D ``nearest`` one do; 1-D and 3-D ``nearest``, ``nearest-exact`` and ``bicubic`` use the scale."""
    if n_in != n_out:
        return False
    return factor is None or mode in ("linear", "bilinear", "trilinear") or (mode == "nearest" and spatial == 2)


def _fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once where the operands are float32, as the fused multiply-adds PyTorch's
    vectorized (AVX2/AVX-512) CPU kernels are compiled with; the float64 product of two float32 values
    is exact, so rounding the float64 sum to float32 is the fused operation's (but for a double
    rounding, in the rare sums that need more than float64's 53 bits)."""
    if np.result_type(a, b, c) == np.float64:  # (nothing wider: float64's one extra rounding is ~1e-16)
        return a * b + c
    return (np.float64(a) * np.asarray(b, np.float64) + np.float64(c)).astype(np.float32)


def _cubic(d: Any, a: Any) -> Any:
    """Keys' cubic kernel at distances ``|d| < 2`` (``a`` of ``d``'s type), with PyTorch's
    ``cubic_convolution1``/``2`` expressions and the multiply-adds its compiled kernels fuse."""
    near = _fma(a + 2, d, -(a + 3)) * d * d + 1  # |d| <= 1
    far = _fma(_fma(a, d, -5 * a), d, 8 * a) * d - 4 * a  # 1 < |d| < 2
    return np.where(d <= 1, near, far)


def _taps(mode: str, n_in: int, n_out: int, align_corners: bool, factor: float | None,
          spatial: int = 1, ct: Any = np.float64) -> list[tuple[Any, Any]]:
    """``[(positions, weights or None[, reads]), ...]`` for one axis: output ``j`` is ``sum_k w_k[j] x[i_k[j]]``
    over the taps that read for ``j`` (:func:`_resample_axis`); the interpolating modes' positions and
    weights are computed in ``ct`` (:func:`_position_dtype`)."""
    j = np.arange(n_out)
    if _keeps_axis(mode, n_in, n_out, factor, spatial):
        return [(j, None)]
    if mode in ("nearest", "nearest-exact"):
        if mode == "nearest" and spatial == 2 and n_out == 2 * n_in:  # PyTorch's 2-D kernel: ``j >> 1``
            return [(j // 2, None)]
        s = np.float32(1.0 / factor if factor is not None else n_in / n_out)
        pos = j.astype(np.float32) + np.float32(0.5 if mode == "nearest-exact" else 0.0)
        return [(np.minimum(np.floor(pos * s).astype(np.int64), n_in - 1), None)]
    if mode == "area":
        start = (j * n_in) // n_out
        stop = -((-(j + 1) * n_in) // n_out)
        length = stop - start
        return [(np.minimum(start + k, stop - 1), np.where(k < length, 1.0 / length, 0.0), k < length)
                for k in range(int(length.max()))]
    s = _linear_scale(n_in, n_out, align_corners, factor, ct)
    jf = j.astype(ct)
    src = jf * s if align_corners else _fma(s, jf + ct(0.5), ct(-0.5))
    if mode != "bicubic":
        src = np.maximum(src, ct(0.0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    t = np.clip(src - i0.astype(ct), ct(0.0), ct(1.0))  # PyTorch's guard_index_and_lambda
    if mode != "bicubic":
        return [(i0, ct(1.0) - t), (np.minimum(i0 + 1, n_in - 1), t)]
    a = ct(_CUBIC_A)  # distances to the taps at -1, 0, 1, 2, spelled as PyTorch's
    weights = [_cubic(t + 1, a), _cubic(t, a), _cubic(1 - t, a), _cubic((1 - t) + 1, a)]
    return [(np.clip(i0 - 1 + k, 0, n_in - 1), w) for k, w in enumerate(weights)]


def _antialias_taps(mode: str, n_in: int, n_out: int, align_corners: bool, factor: float | None,
                    spatial: int = 2, ct: Any = np.float64) -> list:
    """``antialias=True`` (PyTorch's, after PIL's): the filter (bilinear's triangle, or Keys' cubic with
    ``A = -1/2`` for bicubic) is widened by the scale when shrinking, so every input sample in its
    reach counts; the taps are cut at the input's ends and renormalized to sum to 1.  The arithmetic
    is PyTorch's ``_compute_weights_aa``'s: ``ct`` values, with the ``+ 0.5`` steps in float64."""
    scale = _linear_scale(n_in, n_out, align_corners, factor, ct)
    half = ct(1.0 if mode == "bilinear" else 2.0)  # half the filter's width at scale 1
    support, stretch = (half * scale, ct(1.0 / np.float64(scale))) if scale >= 1.0 else (half, ct(1.0))
    centre = (np.float64(scale) * (np.arange(n_out) + 0.5)).astype(ct)
    start = np.maximum(((centre - support) + 0.5).astype(np.int64), 0)  # C's truncation, as PyTorch
    count = np.minimum(((centre + support) + 0.5).astype(np.int64), n_in) - start
    k = np.arange(int(count.max()))[:, None]
    d = np.abs((((start + k).astype(ct) - centre) + 0.5) * np.float64(stretch)).astype(ct)
    if mode == "bilinear":
        w = np.maximum(ct(1.0) - d, ct(0.0))
    else:
        w = np.where(d < 2, _cubic(d, ct(-0.5)), ct(0.0))
    w = np.where(k < count, w, ct(0.0))
    total = w[0]
    for row in w[1:]:  # summed tap by tap, in the kernel's order
        total = total + row
    w = w / np.where(total != 0, total, ct(1.0))
    return [(np.minimum(start + kk, n_in - 1), w[kk], kk < count) for kk in range(len(k))]


def cubic_weights(t: Any) -> tuple[Any, Any, Any, Any]:
    """Keys' cubic convolution weights (``A = -0.75``, PyTorch's) of the taps at ``-1, 0, 1, 2``
    around a point ``t`` in [0, 1) past tap 0; arithmetic only, so ``t`` may be an array or a
    Tensor (then the weights are differentiable in it: ``grid_sample``'s grid gradient)."""
    a = _CUBIC_A
    near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1  # noqa: E731  |d| <= 1
    far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # noqa: E731  1 < |d| < 2
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _resample_axis(x: Tensor, axis: int, taps: list[tuple[Any, ...]]) -> Tensor:
    """``sum_k w_k * take(x, i_k, axis)`` over the taps ``(i_k, w_k)`` or ``(i_k, w_k, reads_k)``.

    The windows of ``area`` and of ``antialias`` differ in length, so the taps past a shorter
    window's end are padding: ``reads_k`` is False there, and the padding tap adds an exact 0
    rather than ``0 * x`` -- which is NaN where the element it points at is infinite or NaN,
    an element outside that window (PyTorch's kernels sum each window's own elements only).
    """
    xp = x.device.xp
    shape = [1] * x.ndim
    shape[axis] = -1
    out = None
    for pos, w, *reads in taps:
        term = mf.take(x, pos.tolist(), axis=axis)
        if reads and not reads[0].all():
            term = mf.where(Tensor.constant(xp.asarray(reads[0].reshape(shape)), x.device), term, 0.0)
        if w is not None:
            term = term * Tensor.constant(xp.asarray(w.astype(x.dtype).reshape(shape)), x.device)
        out = term if out is None else out + term
    return out


def _check_mode(name: str, x: Tensor, mode: str, antialias: bool) -> None:
    """The checks PyTorch makes once the sizes are known, in its order: ``antialias`` (ValueError), then
    the mode for the input's rank (NotImplementedError), then the dtype."""
    if antialias and (mode not in ("bilinear", "bicubic") or x.ndim != 4):
        raise ValueError(f"{name}: antialias=True needs mode 'bilinear' or 'bicubic' and a 4-D input, "
                         f"got {mode!r} and shape {x.shape}")
    if mode not in _MODES:
        raise ModeNotImplemented(f"{name}: mode must be one of {_MODES}, got {mode!r}")
    if x.ndim not in (3, 4, 5):
        raise ModeNotImplemented(f"{name}: expected a 3-D, 4-D or 5-D (N, C, *spatial) input, got shape {x.shape}")
    want = _SPATIAL.get(mode)
    if want is not None and x.ndim - 2 != want:
        raise ModeNotImplemented(f"{name}: mode {mode!r} needs {want} spatial axes ({want + 2}-D input), "
                                 f"got shape {x.shape}")
    if x.dtype.kind != "f" and not (x.dtype == "uint8" and mode in ("nearest", "nearest-exact")):
        # PyTorch also resamples uint8 images bilinearly (in fixed point); here only the nearest modes take them.
        # PyTorch's NotImplementedError ('"upsample_bilinear2d_channels_last" not implemented for 'Long''), and a
        # TypeError: the input's type is what is wrong
        raise DtypeNotImplemented(f"{name}: mode {mode!r} not implemented for {x.dtype}: expected a floating input "
                                  "(uint8 with the nearest modes)")


def interpolate(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resample the spatial axes of (N, C, *spatial) ``input`` to ``size`` or by ``scale_factor``.

    ``mode``: ``"nearest"``, ``"nearest-exact"``, ``"linear"`` (3-D input), ``"bilinear"``,
    ``"bicubic"`` (4-D), ``"trilinear"`` (5-D) or ``"area"`` (adaptive average pooling).
    ``align_corners=True`` maps the corner pixels' centres onto each other (interpolating
    modes only).  With ``scale_factor``, the source positions use ``1 / scale_factor``
    unless ``recompute_scale_factor=True`` (then the sizes' ratio), as in PyTorch.
    The result is a new tensor laid out as PyTorch's: row-major, or channels-last for a
    channels-last input (so ``y.permute(0, 2, 3, 1).view(n, -1, c)`` works where it works there).
    """
    x = input = _tensor(input)
    if align_corners is not None and mode not in _SPATIAL:  # (PyTorch's first check)
        raise ValueError("interpolate: align_corners can only be set with the interpolating modes "
                         f"(linear, bilinear, bicubic, trilinear), not {mode!r}")
    spatial = x.shape[2:]
    sizes, factors = _output_sizes("interpolate", spatial, size, scale_factor)
    if recompute_scale_factor and size is not None:  # (PyTorch refuses it: there is no factor to recompute)
        raise ValueError("interpolate: recompute_scale_factor is not meaningful with an explicit size")
    _check_mode("interpolate", x, mode, antialias)
    _check_sizes("interpolate", spatial, sizes, mode)
    if recompute_scale_factor:
        factors = [None] * len(factors)
    for k, (n_in, n_out, f) in enumerate(zip(spatial, sizes, factors)):
        if _keeps_axis(mode, n_in, n_out, f, len(spatial)) or (antialias and n_in == n_out):
            continue  # (PyTorch's antialiased kernels copy every unchanged axis)
        if n_out == 0:  # (``area`` only: an adaptive pool to nothing, which has no window to tap)
            x = x.narrow(2 + k, 0, 0)
            continue
        taps = _antialias_taps if antialias else _taps
        x = _resample_axis(x, 2 + k, taps(mode, n_in, n_out, bool(align_corners), f, len(spatial),
                                          _position_dtype(x.dtype)))
    return as_pytorch_lays_out(input, x)


def _deprecated(name: str) -> None:
    """PyTorch's warning for its older names of ``interpolate``."""
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", UserWarning,
                  stacklevel=stacklevel_outside_the_engine())


def upsample(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """PyTorch's older name: ``interpolate(input, size, scale_factor, mode, align_corners)``."""
    _deprecated('upsample')
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Any, size: Any = None, scale_factor: Any = None) -> Tensor:
    """PyTorch's older name: ``interpolate(input, size, scale_factor, mode="nearest")``."""
    _deprecated('upsample_nearest')
    return interpolate(input, size, scale_factor, "nearest")


def upsample_bilinear(input: Any, size: Any = None, scale_factor: Any = None) -> Tensor:
    """PyTorch's older name: ``interpolate(input, size, scale_factor, "bilinear", align_corners=True)``."""
    _deprecated('upsample_bilinear')
    return interpolate(input, size, scale_factor, "bilinear", True)
