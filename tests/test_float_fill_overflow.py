"""A number beyond a float dtype's largest, written into a float tensor or bounding one, is PyTorch's
``RuntimeError`` ("value cannot be converted to type float without overflow"), not a silent inf.

``mg.full((2,), 1e300, dtype=mg.float32)``, ``x.fill_(1e300)``, ``x[0] = 1e300``, ``full_like``,
``new_full``, ``x.clamp(max=1e300)`` and ``mg.where(c, x, 1e300)`` of a float32 ``x`` wrote or
compared inf; torch 2.13 raises for each (as the engine already did for integer dtypes and for
``masked_fill``/``scatter``/``index_fill``).  Infinities and NaN still convert, and so does the
largest value itself.

Expected outcomes: torch 2.13 (``tests/data/make_torch_float_overflow.py`` runs the cases of
``tests/data/float_overflow_cases.py`` and writes ``tests/data/torch_float_overflow.json``).
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from float_overflow_cases import CASES  # noqa: E402

TORCH = json.loads(DATA.joinpath("torch_float_overflow.json").read_text())


def _value(v):
    if isinstance(v, list):
        return complex(_value(v[0]), _value(v[1]))
    return math.nan if v is None else float(v)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_outcome_is_pytorchs(name, device):
    if device == "strict-f32" and "float64" in name:
        pytest.skip("strict-f32 holds no float64")
    want = TORCH[name]
    if "raises" in want:
        with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow"):
            CASES[name](mg, device)
        return
    got = CASES[name](mg, device)
    assert str(got.dtype) == want["dtype"]
    np.testing.assert_array_equal(got.detach().cpu().numpy(), np.array([_value(v) for v in want["values"]]))


def test_the_error_is_also_numpys_overflow_error():
    with pytest.raises(OverflowError):
        mg.zeros(2).fill_(1e300)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_under_forward_mode(device):
    x, t = mg.zeros(2, device=device), mg.ones(2, device=device)
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.func.jvp(lambda v: v.clamp(max=1e300), (x,), (t,))

    def written(v):
        w = v * 1
        w[0] = 1e300
        return w

    with pytest.raises(RuntimeError, match="without overflow"):
        mg.func.jvp(written, (x,), (t,))
    value, tangent = mg.func.jvp(lambda v: v.clamp(max=3e38), (x,), (t,))  # in range: a bound as ever
    assert tangent.tolist() == [1.0, 1.0]
