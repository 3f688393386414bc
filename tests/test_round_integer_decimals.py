"""``x.round(decimals=...)`` of an integer or bool tensor is PyTorch's ``NotImplementedError``: its
``decimals`` overload has no integer kernel (the method answered the integers unchanged before,
NumPy's ``round``).  ``x.round()`` keeps integers, and ``mg.round`` keeps NumPy's reading.

Expected messages: torch 2.13 (``torch.tensor([1, 2]).round(decimals=1)``: '"round_cpu" not implemented
for 'Long''; ``decimals=0``: '"round_vml_cpu" ...'; a bool tensor is refused without ``decimals`` too).
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict", "strict-f32"]
# (dtype, decimals keyword or None for none given, torch's kernel name or None where it answers)
CASES = [(mg.int64, 1, "round_cpu"), (mg.int64, -1, "round_cpu"), (mg.int64, 0, "round_vml_cpu"),
         (mg.int32, 2, "round_cpu"), (mg.uint8, 0, "round_vml_cpu"), (mg.int8, 2, "round_cpu"),
         (mg.bool, 1, "round_cpu"), (mg.bool, 0, "round_vml_cpu"), (mg.bool, None, "round_vml_cpu")]
NAMES = {mg.int64: "Long", mg.int32: "Int", mg.uint8: "Byte", mg.int8: "Char", mg.bool: "Bool"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype, decimals, kernel", CASES, ids=str)
@pytest.mark.parametrize("in_place", [False, True], ids=["round", "round_"])
def test_integer_round_with_decimals_is_pytorchs_error(device, dtype, decimals, kernel, in_place):
    x = mg.tensor([1, 0], dtype=dtype, device=device)
    method = x.round_ if in_place else x.round
    with pytest.raises(NotImplementedError) as caught:
        method() if decimals is None else method(decimals=decimals)
    assert str(caught.value) == f"\"{kernel}\" not implemented for '{NAMES[dtype]}'"
    assert x.tolist() == [1, 0]  # round_ wrote nothing


@pytest.mark.parametrize("device", DEVICES)
def test_round_without_decimals_keeps_integers_and_floats_still_round(device):
    x = mg.tensor([15, -3], device=device)
    assert x.round().dtype == mg.int64 and x.round().tolist() == [15, -3]
    assert x.clone().round_().tolist() == [15, -3]
    f = mg.tensor([1.25, 2.5], dtype=mg.float32, device=device)
    assert f.round(decimals=1).tolist() == pytest.approx([1.2, 2.5])
    assert f.round().tolist() == [1.0, 2.0]
    assert mg.round(mg.tensor([15, 24], device=device), decimals=-1).tolist() == [20, 20]  # NumPy's function
