"""PyTorch takes the power of a 0-d floating exponent in the result's dtype: ``ldexp(x, e)`` of a
float64 ``x`` and a float32 (or float16) 0-d ``e = -0.5`` is ``x * 2 ** -0.5`` rounded in float64.
The engine took ``exp2`` in the exponent's own dtype, so the answer carried float32's (float16's)
``2 ** -0.5``.  An exponent with dims keeps its own precision, as in PyTorch.  Values are torch 2.13's.
Found by the dtype-semantics red team (every binary method with 0-d operands of eleven dtypes)."""
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("e_dtype", [mg.float32, mg.float16])
def test_a_zero_d_float_exponent_is_taken_in_float64(e_dtype):
    x = mg.tensor([-2.5, 1.5], dtype=mg.float64)
    e = mg.tensor(-0.5, dtype=e_dtype)
    for out in (mg.ldexp(x, e), x.ldexp(e), x.clone().ldexp_(e)):
        assert out.dtype == mg.float64
        assert out.tolist() == [-1.7677669529663689, 1.0606601717798214]


def test_a_zero_d_complex_exponent_is_taken_in_complex128():
    out = mg.tensor([-2.5, 1.5], dtype=mg.float64).ldexp(mg.tensor(0.1 + 0.2j, dtype=mg.complex64))
    assert out.dtype == mg.complex128
    assert out.tolist() == [(-2.6537280262178307 - 0.3702597688490913j), (1.5922368157306985 + 0.22215586130945475j)]


def test_an_exponent_with_dims_keeps_its_precision():
    out = mg.tensor([-2.5, 1.5], dtype=mg.float64).ldexp(mg.tensor([-0.5, 0.3], dtype=mg.float32))
    assert out.dtype == mg.float64
    assert out.tolist() == [-1.767766922712326, 1.8467166423797607]
    assert mg.tensor([-2.5, 1.5]).ldexp(mg.tensor(-0.3, dtype=mg.float64)).tolist() == [
        -2.0306310653686523, 1.2183785438537598]


def test_gradients_stay_in_each_operands_dtype():
    x = mg.tensor([-2.5, 1.5], dtype=mg.float64, requires_grad=True)
    e = mg.tensor(-0.5, requires_grad=True)
    mg.ldexp(x, e).sum().backward()
    assert x.grad.dtype == mg.float64 and e.grad.dtype == mg.float32
    assert x.grad.tolist() == pytest.approx([0.7071067811865476] * 2, rel=1e-15)
    assert e.grad.item() == pytest.approx(-0.4901290833950043, rel=1e-6)


def test_a_narrow_result_rounds_the_wider_power_once_and_float16_beside_float32_keeps_its_own():
    # torch 2.13's answers; the float32-in-float32 and float16-in-float16 power answered other values
    f16 = mg.tensor([1.0, 3.7], dtype=mg.float16).ldexp(mg.tensor(3.3))
    assert f16.dtype == mg.float16 and f16.tolist() == [9.8515625, 36.4375]
    f32 = mg.tensor([1.0, 3.7]).ldexp(mg.tensor(5.55, dtype=mg.float64))
    assert f32.dtype == mg.float32 and f32.tolist() == [46.85074234008789, 173.34774780273438]
    c64 = mg.tensor([1.0, 3.7], dtype=mg.complex64).ldexp(mg.tensor(5.55, dtype=mg.float64))
    assert c64.dtype == mg.complex64 and c64.tolist() == [46.85074234008789 + 0j, 173.34774780273438 + 0j]
    # a float16 0-d exponent beside a float32 x: its power in float16 (torch's), as before 1390f03e
    assert mg.tensor([1.0, 3.7]).ldexp(mg.tensor(-0.3, dtype=mg.float16)).tolist() == [0.81201171875, 3.004443407058716]
