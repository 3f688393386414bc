"""``where`` with a Python int branch beside an integer tensor converts the int by PyTorch's
checked rule: out of the tensor dtype's range is an error (PyTorch 2.13: "value cannot be
converted to type int8_t without overflow"), not a silent wrap (500 into int8 was -12); -1 beside
uint8 is 255, as PyTorch's.  Answers recorded from PyTorch 2.13 (exact integers)."""
import pytest

import minigrad_ckpt as mg

C = [True, False]


@pytest.mark.parametrize("dtype,value,first", [
    ("uint8", -1, False), ("uint8", -1, True), ("int8", 127, False), ("int8", -128, True), ("int32", 2**31 - 1, False),
])
def test_in_range_int_branch(dtype, value, first):
    t = mg.tensor([1, 2], dtype=getattr(mg, dtype))
    out = mg.where(mg.tensor(C), value, t) if first else mg.where(mg.tensor(C), t, value)
    want = ([value % 256 if dtype == "uint8" else value, 2] if first
            else [1, value % 256 if dtype == "uint8" else value])
    assert out.dtype == getattr(mg, dtype) and out.tolist() == want


@pytest.mark.parametrize("dtype,value,first", [
    ("uint8", -300, False), ("uint8", 256, True), ("int8", 500, False), ("int8", -129, True), ("int8", 200, True),
    ("int64", 2**63, False),
])
def test_out_of_range_int_branch_is_an_error(dtype, value, first):
    t = mg.tensor([1, 2], dtype=getattr(mg, dtype))
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.where(mg.tensor(C), value, t) if first else mg.where(mg.tensor(C), t, value)


def test_method_form_and_float_branch_unchanged():
    t = mg.tensor([1, 2], dtype=mg.int8)
    with pytest.raises(RuntimeError, match="without overflow"):
        t.where(mg.tensor(C), 500)
    out = mg.where(mg.tensor(C), t, 2.5)  # a float promotes, as PyTorch's (float32)
    assert out.dtype == mg.float32 and out.tolist() == [1.0, 2.5]
