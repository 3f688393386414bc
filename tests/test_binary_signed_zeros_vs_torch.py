"""Signed zeros PyTorch's binary kernels answer, where the engine's differed:

- ``remainder`` (``%``) of a Python int dividend and a float tensor: a zero result takes the sign
  of the dividend, as PyTorch's (its remainder starts from ``fmod``): ``-3 % t`` is ``-0.0`` where
  ``t`` is -3 or 3.  The engine signed the zero by ``x * 0``, which of the int -3 is the int 0, so
  ``+0.0`` (a float dividend, or an integer tensor, was right).
- ``nextafter`` of two equal float16 values is the second (C's ``nextafter``):
  ``nextafter(-0.0, 0.0)`` is ``0.0``.  NumPy's float16 loop answers the first, and the engine
  passed it on (its float32 and float64 loops answer the second).

Found running PyTorch's test_binary_ufuncs (``test_fmod_remainder``'s scalar dividends,
``test_nextafter``'s special values) against the engine.  Expected answers: torch 2.13 on the same
calls.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def _bits(t):
    return [(v, bool(np.signbit(v))) for v in t.numpy().astype(np.float64).tolist()]


@pytest.mark.parametrize("dtype", [mg.float16, mg.float32, mg.float64], ids=str)
@pytest.mark.parametrize("spelling", ["operator", "function"])
def test_remainder_of_a_python_int_takes_its_sign(dtype, spelling):
    t = mg.tensor([-3.0, 3.0, -1.5, 1.5, 2.0], dtype=dtype)
    for dividend, zero in ((-3, -0.0), (3, 0.0), (-6, -0.0)):
        out = dividend % t if spelling == "operator" else mg.remainder(dividend, t)
        want = np.remainder(np.float64(dividend), t.numpy().astype(np.float64))
        want = np.where(want == 0, zero, want)  # (NumPy's zero is +0.0 whatever the dividend)
        assert out.dtype == dtype
        assert _bits(out) == _bits(mg.tensor(want, dtype=dtype))


def test_remainder_signs_agree_across_dividend_kinds():
    t = mg.tensor([-3.0, 3.0])
    for dividend in (-3, -3.0, mg.tensor(-3), mg.tensor(-3.0), mg.tensor([-3, -3])):
        assert _bits(mg.remainder(dividend, t)) == [(-0.0, True), (-0.0, True)]


@pytest.mark.parametrize("dtype", [mg.float16, mg.float32, mg.float64], ids=str)
def test_nextafter_of_equal_values_is_the_second(dtype):
    x = mg.tensor([0.0, -0.0, 1.0, -2.0, np.inf], dtype=dtype)
    y = mg.tensor([-0.0, 0.0, 1.0, -2.0, np.inf], dtype=dtype)
    assert _bits(mg.nextafter(x, y)) == _bits(y)
    assert _bits(x.clone().nextafter_(y)) == _bits(y)


def test_nextafter_float16_steps_elsewhere_unchanged():
    x = mg.tensor([0.0, 1.0, -1.0, 65504.0], dtype=mg.float16)
    y = mg.tensor([1.0, 2.0, -2.0, np.inf], dtype=mg.float16)
    assert mg.nextafter(x, y).numpy().tolist() == np.nextafter(x.numpy(), y.numpy()).tolist()


def test_remainder_of_an_infinite_dividend_is_nan_without_numpys_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (signing the zero multiplied inf by 0: "invalid value encountered")
        out = mg.remainder(mg.tensor([np.inf, -np.inf, 1.0]), mg.tensor([2.0, 2.0, 1.0]))
    assert np.isnan(out.numpy()[:2]).all() and _bits(out)[2] == (0.0, False)
