"""A mean's ``dtype=`` must name a floating (or complex) dtype, as PyTorch's: ``x.nanmean(dtype=mg.int64)``
answered float32 and ``mg.mean(x, dim=0, dtype=mg.int64)`` float64, where torch 2.13 raises
"mean(): could not infer output dtype. Optional dtype must be either a floating point or complex
dtype. Got: Long" (``nanmean`` alike).  A float ``dtype=`` still casts first."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

CALLS = {
    "mean method": lambda x, dt: x.mean(dtype=dt),
    "mean dim": lambda x, dt: mg.mean(x, dim=0, dtype=dt),
    "nanmean method": lambda x, dt: x.nanmean(dtype=dt),
    "nanmean method dim": lambda x, dt: x.nanmean(0, dtype=dt),
    "nanmean dim": lambda x, dt: mg.nanmean(x, dim=0, dtype=dt),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.bool, "int64"])
@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
def test_an_integer_dtype_for_a_mean_is_refused(call, dtype, device):
    x = mg.tensor([1.0, 2.0, float("nan")], device=device)
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        CALLS[call](x, dtype)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
def test_a_float_dtype_still_casts(call, device):
    x = mg.tensor([1.0, 2.0, 4.0], device=device)
    y = CALLS[call](x, mg.float64)
    assert y.dtype == mg.float64 and y.item() == pytest.approx(7 / 3)
