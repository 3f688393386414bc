"""The dtypes an ``out=`` of ``abs`` and of ``nansum``/``nanmean`` may have, as torch 2.13's (PyTorch's
test/test_type_promotion.py, ``test_abs_complex_to_float``, translated; the other cells read off torch):
abs of a complex tensor writes its real result into a floating ``out`` of any width or into the
input's own complex dtype; nansum of integers into any ``out``; a complex sum never into a real ``out``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

VALUES = [1 - 2j, -3.5 + 4j, 0.5j]


@pytest.mark.parametrize("dtype", [mg.complex64, mg.complex128])
@pytest.mark.parametrize("out_dtype", [mg.float16, mg.float32, mg.float64, "own"])
def test_abs_of_complex_into_a_floating_out_of_any_width_or_the_inputs_own_dtype(dtype, out_dtype):
    # refused before: "Found dtype ComplexFloat but expected Float" (the result's dtype only)
    out_dtype = dtype if out_dtype == "own" else out_dtype
    z = mg.tensor(VALUES, dtype=dtype)
    out = mg.empty(0, dtype=out_dtype)
    assert mg.abs(z, out=out) is out and mg.absolute(z, out=mg.empty(0, dtype=out_dtype)).dtype == out_dtype
    np.testing.assert_allclose(out.numpy(), np.abs(np.array(VALUES)).astype(out_dtype), rtol=1e-3)


@pytest.mark.parametrize("dtype, out_dtype, words", [
    (mg.complex64, mg.complex128, "Found dtype ComplexDouble but expected ComplexFloat"),
    (mg.complex128, mg.complex64, "Found dtype ComplexFloat but expected ComplexDouble"),
    (mg.complex64, mg.int64, "result type Float can't be cast to the desired output type Long"),
    (mg.complex128, mg.bool, "result type Double can't be cast to the desired output type Bool"),
    (mg.float32, mg.float64, "Found dtype Double but expected Float"),
])
def test_abs_refuses_the_other_complex_width_an_integer_and_for_real_input_another_dtype(dtype, out_dtype, words):
    with pytest.raises(RuntimeError, match=words):
        mg.abs(mg.ones(2, dtype=dtype), out=mg.empty(0, dtype=out_dtype))


@pytest.mark.parametrize("dtype", [mg.uint8, mg.int16, mg.int64, mg.bool])
@pytest.mark.parametrize("out_dtype", [mg.uint8, mg.int32, mg.float32, mg.complex64, mg.bool])
def test_nansum_of_integers_into_an_out_of_any_dtype(dtype, out_dtype):
    # refused before: '"nansum_cpu" not implemented for ...' (a floating out only)
    x = mg.tensor([1, 0, 1]).to(dtype)
    out = mg.nansum(x, out=mg.empty(0, dtype=out_dtype))
    assert out.dtype == out_dtype and out.item() == (2 if out_dtype != mg.bool else True)


@pytest.mark.parametrize("function", [mg.nansum, mg.nanmean])
def test_a_complex_nansum_or_nanmean_is_never_written_into_a_real_out(function):
    # before: written, the imaginary parts dropped with NumPy's ComplexWarning
    z = mg.tensor([1 + 2j, complex("nan"), 3j])
    with pytest.raises(RuntimeError, match="ComplexFloat can't be cast to the desired output type Double"):
        function(z, out=mg.empty(0, dtype=mg.float64))
    assert function(z, out=mg.empty(0, dtype=mg.complex128)).item() == function(z).item()


def test_a_float_nansum_still_takes_a_floating_out_only():
    with pytest.raises(NotImplementedError, match="\"nansum_cpu\" not implemented for 'Long'"):
        mg.nansum(mg.ones(2), out=mg.empty(0, dtype=mg.int64))
    assert mg.nansum(mg.tensor([1.0, float("nan")]), out=mg.empty(0, dtype=mg.float16)).item() == 1.0
