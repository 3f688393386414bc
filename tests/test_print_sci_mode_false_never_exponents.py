"""``mg.set_printoptions(sci_mode=False)`` means what PyTorch's means: never exponents.  The engine
printed through NumPy's ``suppress_small``, which still switches to exponents for a value of 1e8
or more, so ``tensor([1e-10, 1e10])`` printed ``tensor([1.e-10, 1.e+10])`` with sci_mode=False
(torch 2.13: ``tensor([    0.0000, 10000000000.0000])``).  Found running PyTorch's print tests
against the engine."""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the "strict" devices)

EXPONENT = re.compile(r"e[+-]\d")


@pytest.fixture(autouse=True)
def _default_options():
    mg.set_printoptions(profile="default")
    yield
    mg.set_printoptions(profile="default")


def _numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+\.?\d*", text.split("dtype=")[0].split("device=")[0])]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("values, dtype, shown", [
    ([1e-10, 1e10], mg.float32, [0.0, 1e10]),
    ([3e9], mg.float64, [3e9]),
    ([123456789.0, 0.5], mg.float64, [123456789.0, 0.5]),
    ([2.0**40, -1.25], mg.float64, [2.0**40, -1.25]),
])
def test_sci_mode_false_prints_large_values_in_fixed_point(values, dtype, shown, device):
    mg.set_printoptions(sci_mode=False)
    text = repr(mg.tensor(values, dtype=dtype, device=device))
    assert not EXPONENT.search(text), text
    assert _numbers(text) == shown, text


def test_sci_mode_false_keeps_nonfinite_values_and_aligns_the_points():
    mg.set_printoptions(sci_mode=False)
    text = repr(mg.tensor([1.5, float("nan"), -float("inf"), 1e9], dtype=mg.float64))
    assert text == "tensor([         1.5,          nan,         -inf, 1000000000. ], dtype=float64)"


def test_sci_mode_false_complex_parts_in_fixed_point():
    mg.set_printoptions(sci_mode=False)
    text = repr(mg.tensor([1e-10 + 1e10j, -2 - 0.5j]))
    assert not EXPONENT.search(text), text
    assert "+10000000000.j" in text and "-0.5j" in text


def test_sci_mode_false_precision_and_summarizing():
    mg.set_printoptions(sci_mode=False, precision=2, threshold=5, edgeitems=1)
    text = repr(mg.arange(10, dtype=mg.float64) * 1e9 + 0.123)
    assert text == "tensor([         0.12, ..., 9000000000.12], dtype=float64)"


def test_sci_mode_none_and_true_unchanged():
    assert EXPONENT.search(repr(mg.tensor([1e-10, 1e10])))  # chosen per tensor: exponents here
    mg.set_printoptions(sci_mode=True)
    assert repr(mg.tensor([1.5, 2.0])) == "tensor([1.50000000e+00, 2.00000000e+00])"
