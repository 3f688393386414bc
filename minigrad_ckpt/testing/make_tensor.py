"""``make_tensor``: PyTorch's ``torch.testing.make_tensor``, a tensor of random values for a test.

Values are drawn from the engine generator (``mg.manual_seed`` reproduces them), uniformly in
``[low, high)`` (``high`` itself never drawn, however the dtype rounds): by default ``[-9, 9)`` for
floats (each part of a complex number), ``[-9, 10)`` for signed integers, ``[0, 10)`` for unsigned
ones, ``[0, 2)`` for bools. A ``low`` or ``high`` beyond what the dtype holds is clamped to it, as
PyTorch's: integers to ``[min, max + 1)`` (``int64`` to ``[min, max)``), so that the dtype's largest
value can be drawn; floats to the finite range, drawn without overflowing. ``exclude_zero`` moves
zeros to the dtype's smallest positive normal number (1 for integers and bools), ``noncontiguous``
returns a strided view of the same values, as PyTorch's.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import creation
from ..backend import as_dtype, host_numpy
from ..functional.complex_numbers import complex as _complex
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["make_tensor"]


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of ``shape`` (sizes, or one tuple of them) filled with random values of ``dtype``
    on ``device`` (both required, as PyTorch's); see the module docstring for the ranges."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    dt = as_dtype(dtype)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and dt.kind not in "fc":
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    if dt.kind in "biu":
        info = host_numpy.iinfo(dt) if dt.kind != "b" else None
        # PyTorch's bounds: the largest value can be drawn, except int64's (its max + 1 is no int64)
        lowest, beyond = (0, 2) if info is None else (int(info.min), int(info.max) + (dt != host_numpy.int64))
        defaults = (0, 2) if info is None else (0 if dt.kind == "u" else -9, 10)
        lo, hi = _range(low, high, *defaults, lowest, beyond, dtype, dt)
        out = creation.randint(math.ceil(lo), math.ceil(hi), shape, dtype="int64" if info is None else dt,
                               device=device).to(dt)
    else:
        real = host_numpy.zeros(0, dt).real.dtype
        info = host_numpy.finfo(real)
        lo, hi = _range(low, high, -9, 9, float(info.min), float(info.max), dtype, dt)
        parts = [_uniform(shape, real, device, lo, hi, float(info.max)) for _ in range(1 + (dt.kind == "c"))]
        out = parts[0] if dt.kind == "f" else _complex(parts[0], parts[1])
    if exclude_zero:
        out = out.masked_fill(out == 0, 1 if dt.kind in "iub" else host_numpy.finfo(out.real.dtype).tiny)
    if noncontiguous and out.numel() > 1:
        out = out.repeat_interleave(2, dim=-1)[..., ::2]
    if memory_format is not None:
        out = out.contiguous(memory_format=memory_format)
    return out.requires_grad_(True) if requires_grad else out


def _uniform(shape: tuple, real: Any, device: Any, lo: float, hi: float, biggest: float) -> Tensor:
    """Uniform values in ``[lo, hi)``; a span wider than the dtype's largest number is drawn at
    half the scale and doubled, as PyTorch's (``hi - lo`` itself would overflow to inf)."""
    u = creation.rand(*shape, dtype=real, device=device)
    if hi - lo >= biggest:
        drawn = (u * (hi / 2 - lo / 2) + lo / 2) * 2
    else:
        drawn = u * (hi - lo) + lo
    # a draw just below ``hi`` rounds to it where the dtype's numbers are spaced wider than
    # ``(hi - lo) * 2**-mantissa`` (float16 in [1000, 1001), float32 in [1e6, 1e6 + 1)): kept below it
    below = _largest_below(hi, real)
    return drawn if below is None or below < lo else drawn.clamp(max=below)  # (low == high: a constant)


def _largest_below(hi: float, real: Any) -> float | None:
    """The largest number of the dtype ``real`` that is less than ``hi`` (None if there is none)."""
    top = host_numpy.asarray(hi, dtype=real) if math.isfinite(hi) else host_numpy.asarray(
        host_numpy.finfo(real).max, dtype=real)
    if float(top) >= hi:
        top = host_numpy.nextafter(top, host_numpy.asarray(-host_numpy.inf, dtype=real))
    return float(top) if math.isfinite(float(top)) else None


def _range(low: float | None, high: float | None, default_low: float, default_high: float, lowest: float,
           beyond: float, dtype: Any, dt: Any) -> tuple:
    """``[low, high)``, the defaults filling a None, clamped to ``[lowest, beyond)``: PyTorch's
    ``modify_low_high``, its checks and its words."""
    lo = default_low if low is None else low
    hi = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
    if lo == hi and dt.kind in "fc":
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=stacklevel_outside_the_engine())
    elif lo >= hi:
        raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
    elif hi < lowest or lo >= beyond:
        raise ValueError(f"The value interval specified by `low` and `high` is [{lo}, {hi}), but {dtype} only "
                         f"supports [{lowest}, {beyond})")
    return min(max(lo, lowest), beyond), min(max(hi, lowest), beyond)
