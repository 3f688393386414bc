"""The window functions refuse a dtype that is not a float one in PyTorch's words.  torch 2.13:
``torch.hann_window(3, dtype=torch.long)`` raises RuntimeError "hann_window expects floating point
dtypes, got: TensorOptions(dtype=long int, ...)" (bool too), a complex dtype NotImplementedError
'"arange_cpu" not implemented for 'ComplexFloat''.  The engine said "dtype must be a float dtype",
which PyTorch's own test_signal_window_functions (``assertRaisesRegex(RuntimeError, 'floating point')``)
does not match -- found running that test against the engine."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

WINDOWS = ["hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.uint8, mg.bool])
def test_an_integer_or_bool_dtype_is_refused_in_pytorchs_words(name, dtype):
    with pytest.raises(RuntimeError, match=rf"^{name} expects floating point dtypes, got: "):
        getattr(mg, name)(3, dtype=dtype)
    with pytest.raises(TypeError):  # (as before the words changed)
        getattr(mg, name)(3, dtype=dtype)


@pytest.mark.parametrize("name", WINDOWS)
def test_a_complex_dtype_is_not_implemented_and_a_float_one_is_made(name):
    with pytest.raises(NotImplementedError, match="not implemented for complex"):
        getattr(mg, name)(3, dtype=mg.complex64)
    for dtype in (mg.float16, mg.float32, mg.float64):
        assert getattr(mg, name)(3, dtype=dtype).dtype == dtype
