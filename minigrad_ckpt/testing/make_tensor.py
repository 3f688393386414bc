"""``make_tensor``: PyTorch's ``torch.testing.make_tensor``, a tensor of random values for a test.

Values are drawn from the engine generator (``mg.manual_seed`` reproduces them), uniformly in
``[low, high)``: by default ``[-9, 9)`` for floats (each part of a complex number), ``[-9, 10)`` for
signed integers, ``[0, 10)`` for unsigned ones; bools are fair coin flips.  ``exclude_zero`` moves
zeros to the dtype's smallest positive normal number (1 for integers), ``noncontiguous`` returns a
strided view of the same values, as PyTorch's.
"""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..backend import as_dtype, host_numpy
from ..functional.complex_numbers import complex as _complex
from ..tensor import Tensor

__all__ = ["make_tensor"]


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of ``shape`` (sizes, or one tuple of them) filled with random values of ``dtype``
    on ``device`` (both required, as PyTorch's); see the module docstring for the ranges."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    dt = as_dtype(dtype)
    if requires_grad and dt.kind not in "fc":
        raise ValueError("make_tensor: requires_grad must be False for integral dtype")
    if dt.kind == "b":
        out = creation.randint(0, 2, shape, device=device).to(dt)
    elif dt.kind in "iu":
        lo, hi = _range(low, high, 0 if dt.kind == "u" else -9, 10, host_numpy.iinfo(dt))
        out = creation.randint(math.ceil(lo), math.ceil(hi), shape, dtype=dt, device=device)
    else:
        real = host_numpy.zeros(0, dt).real.dtype
        lo, hi = _range(low, high, -9, 9, host_numpy.finfo(real))
        parts = [creation.rand(*shape, dtype=real, device=device) * (hi - lo) + lo for _ in range(1 + (dt.kind == "c"))]
        out = parts[0] if dt.kind == "f" else _complex(parts[0], parts[1])
    if exclude_zero:
        out = out.masked_fill(out == 0, 1 if dt.kind in "iub" else host_numpy.finfo(out.real.dtype).tiny)
    if noncontiguous and out.numel() > 1:
        out = out.repeat_interleave(2, dim=-1)[..., ::2]
    if memory_format is not None:
        out = out.contiguous(memory_format=memory_format)
    return out.requires_grad_(True) if requires_grad else out


def _range(low: float | None, high: float | None, default_low: float, default_high: float, info: Any) -> tuple:
    """``[low, high)``, the defaults filling a None, clamped to what the dtype holds, PyTorch's checks."""
    lo = default_low if low is None else low
    hi = default_high if high is None else high
    if math.isnan(lo) or math.isnan(hi):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
    if lo >= hi:
        raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
    return max(lo, float(info.min)), min(hi, float(info.max))
