"""``F.threshold`` and ``F.hardtanh`` of integer input take their numbers into the input's dtype first,
as PyTorch's kernels do (torch 2.13's answers are written here as literals).

Found by running the unary functions of PyTorch's operator database at the extremes of every dtype
against torch: ``threshold`` compared an integer input with the float threshold itself (``-1.5``
kept ``-1``, where PyTorch's truncated threshold ``-1`` replaces it; an int64 beyond 2**24 was
compared as a float32, so ``2**40 + 1 <= 2.0**40`` held), and answered for thresholds and values the
dtype cannot hold (``-0.5`` or ``300`` for uint8, ``200.0`` for int8, NaN), which PyTorch refuses;
``hardtanh`` refused a uint8 input for a bound of ``-0.5``, which PyTorch truncates to 0 first, and
answered for bounds beyond the dtype (``-1000`` for int8)."""
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


def test_threshold_is_truncated_into_the_integer_dtype():
    x = mg.tensor([-2, -1, 0, 3], dtype=mg.int32)
    assert F.threshold(x, -1.5, 9).tolist() == [9, 9, 0, 3]
    assert F.threshold(mg.tensor([-3, -2, 0, 3], dtype=mg.int16), -2.9, 5).tolist() == [5, 5, 0, 3]
    assert F.threshold(mg.tensor([-2, 0, 1, 3]), 1.5, 0.5).tolist() == [0, 0, 0, 3]


def test_threshold_compares_int64_as_integers():
    big = 2 ** 40
    x = mg.tensor([big, big + 1, big + 2, 7])
    assert F.threshold(x, float(big), -1).tolist() == [-1, big + 1, big + 2, -1]
    assert F.threshold(x, big, -1).tolist() == [-1, big + 1, big + 2, -1]


@pytest.mark.parametrize("dtype, threshold, value", [
    ("uint8", -0.5, 2), ("uint8", 2, -0.5), ("uint8", 300, 1), ("uint8", 3.5, 300), ("uint8", 3, -256),
    ("int8", 200.0, 1), ("int8", 1, 127.9), ("int8", float("nan"), 1), ("int8", 1, float("inf")),
    ("int32", 1e10, 0)])
def test_threshold_refuses_numbers_the_integer_dtype_cannot_hold(dtype, threshold, value):
    x = mg.tensor([0, 1, 2, 5, 100], dtype=dtype)
    with pytest.raises(RuntimeError, match="cannot be converted to type"):
        F.threshold(x, threshold, value)
    with pytest.raises(RuntimeError, match="cannot be converted to type"):
        F.threshold(x.clone(), threshold, value, inplace=True)


def test_threshold_wraps_a_negative_int_into_uint8_as_pytorch():
    x = mg.tensor([0, 1, 2, 5, 100, 127], dtype=mg.uint8)
    assert F.threshold(x, 3, -1).tolist() == [255, 255, 255, 5, 100, 127]
    assert F.threshold(x, -1, 7).tolist() == [7] * 6
    assert F.threshold(x, 3, 255.0).tolist() == [255, 255, 255, 5, 100, 127]
    j = x.clone()
    F.threshold(j, 1.5, 9, inplace=True)
    assert j.tolist() == [9, 9, 2, 5, 100, 127] and j.dtype == mg.uint8


def test_hardtanh_truncates_integer_bounds_before_refusing():
    x = mg.tensor([0, 1, 2, 5, 100, 127], dtype=mg.uint8)
    assert F.hardtanh(x, -0.5, 0.5).tolist() == [0] * 6
    assert F.hardtanh(x, -0.9, 3.7).tolist() == [0, 1, 2, 3, 3, 3]
    assert F.hardtanh(x, 0, 255.5).tolist() == [0, 1, 2, 5, 100, 127]
    assert F.hardtanh(x.to(mg.int8), -2.5, 2.5).tolist() == [0, 1, 2, 2, 2, 2]
    with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
        F.hardtanh(x, -1, 3)


@pytest.mark.parametrize("dtype, low, high", [("int8", -1000, 1000), ("uint8", -0.99, 300), ("int16", 0, 40000)])
def test_hardtanh_refuses_bounds_the_integer_dtype_cannot_hold(dtype, low, high):
    x = mg.tensor([0, 1, 2, 5, 100], dtype=dtype)
    with pytest.raises(RuntimeError, match="cannot be converted to type"):
        F.hardtanh(x, low, high)
