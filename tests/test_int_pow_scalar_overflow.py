"""An integer tensor to a Python int power converts the exponent to the tensor's dtype by
PyTorch's checked rule: out of range is an error (PyTorch 2.13: int8 ** 128 and uint8 ** 256
raise "value cannot be converted ... without overflow"), not NumPy's silent wrap (int8 ** 300
gave [1, 0]).  In range, the values are unchanged.  Recorded from PyTorch 2.13."""
import pytest

import minigrad_ckpt as mg

# (dtype, the largest exponent PyTorch accepts)
LIMITS = [("int8", 127), ("uint8", 255), ("int32", 2**31 - 1)]


@pytest.mark.parametrize("dtype,limit", LIMITS)
def test_exponent_in_range(dtype, limit):
    t = mg.tensor([1, 2], dtype=getattr(mg, dtype))
    for out in (t ** limit, t.pow(limit), mg.pow(t, limit)):
        assert out.dtype == getattr(mg, dtype) and out.tolist()[0] == 1


@pytest.mark.parametrize("dtype,limit", LIMITS)
def test_exponent_out_of_range_is_an_error(dtype, limit):
    t = mg.tensor([1, 2], dtype=getattr(mg, dtype))
    for call in (lambda: t ** (limit + 1), lambda: t.pow(limit + 1), lambda: mg.pow(t, limit + 1)):
        with pytest.raises(RuntimeError, match="without overflow"):
            call()


def test_int64_and_float_bases_unchanged():
    assert (mg.tensor([1, 2]) ** 300).tolist() == [1, 0]  # int64 holds 300; 2 ** 300 wraps, as PyTorch's
    assert (mg.tensor([1.0, 2.0]) ** 2).tolist() == [1.0, 4.0]
