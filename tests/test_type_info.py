"""``mg.finfo``/``mg.iinfo`` answer as PyTorch's ``torch.finfo``/``torch.iinfo`` (its
test/test_type_info.py, translated): the values NumPy's finfo/iinfo have, as Python numbers; a dtype
of the wrong kind is a TypeError; the default dtype without an argument."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

FLOATS = (mg.float16, mg.float32, mg.float64, mg.complex64, mg.complex128)
INTS = (mg.int64, mg.int32, mg.int16, mg.int8, mg.uint8, mg.uint16, mg.uint32, mg.uint64)


@pytest.mark.parametrize("dtype", FLOATS + (mg.bool,))
def test_iinfo_of_a_float_complex_or_bool_dtype_is_a_type_error(dtype):
    # NumPy's iinfo raised ValueError ("Invalid integer data type 'f'.")
    with pytest.raises(TypeError, match="iinfo"):
        mg.iinfo(dtype)


@pytest.mark.parametrize("dtype", INTS + (mg.bool, int, bool))
def test_finfo_of_an_integer_or_bool_dtype_is_a_type_error(dtype):
    with pytest.raises(TypeError, match=r"requires a floating point input type\. Use torch\.iinfo"):
        mg.finfo(dtype)


@pytest.mark.parametrize("call", [lambda: mg.finfo(mg.zeros(2)), lambda: mg.iinfo(mg.zeros(2, dtype=mg.int64)),
                                  lambda: mg.iinfo(None), lambda: mg.iinfo(float)])
def test_a_tensor_none_or_a_float_type_is_not_an_integer_or_float_dtype(call):
    # a tensor was read as its dtype (NumPy's dtype() reads .dtype); PyTorch's argument parser refuses it
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("dtype", INTS)
def test_iinfo_is_python_ints_and_the_dtypes_name(dtype):
    info, expected = mg.iinfo(dtype), np.iinfo(dtype)
    assert (info.bits, info.min, info.max) == (expected.bits, expected.min, expected.max)
    assert type(info.min) is int and type(info.max) is int and type(info.bits) is int
    assert info.dtype == dtype.name and isinstance(info.dtype, str)
    assert mg.iinfo(type=dtype) == info


def test_iinfo_prints_as_pytorchs_on_one_line():
    # torch 2.13's reprs; NumPy's iinfo printed a table over several lines
    assert repr(mg.iinfo(mg.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"
    assert str(mg.iinfo(mg.int32)) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"
    assert repr(mg.iinfo(mg.uint64)) == "iinfo(min=0, max=1.84467e+19, dtype=uint64)"
    assert mg.iinfo(int) == mg.iinfo(mg.int64)


@pytest.mark.parametrize("dtype", FLOATS)
def test_finfo_has_numpys_limits_and_the_default_dtypes_without_an_argument(dtype):
    info, expected = mg.finfo(dtype), np.finfo(dtype)
    for name in ("bits", "max", "min", "eps", "tiny", "smallest_normal"):
        assert getattr(info, name) == getattr(expected, name), name
    assert info.dtype == expected.dtype.name and mg.finfo(type=dtype) == info
    if dtype.kind == "f":
        before = mg.get_default_dtype()
        mg.set_default_dtype(dtype)
        try:
            assert mg.finfo() == info
        finally:
            mg.set_default_dtype(before)


def test_finfo_resolution_is_a_power_of_ten_as_pytorchs():
    # NumPy's is 10**-precision rounded to the dtype (float16's 0.0010004..., float32's 9.99999997e-07)
    assert [mg.finfo(d).resolution for d in FLOATS] == [1e-3, 1e-6, 1e-15, 1e-6, 1e-15]
    assert mg.finfo(float) == mg.finfo(complex) == mg.finfo(mg.float64)
