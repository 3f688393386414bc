"""A dtype an op has no kernel for is PyTorch's ``RuntimeError`` (its ``NotImplementedError``,
``"lt_cpu" not implemented for 'ComplexFloat'``), by every spelling -- and still the ``TypeError``
the engine raised before (:class:`DtypeNotImplemented` is both).

Found by running PyTorch's binary and unary ufunc tests against the engine, dtype by dtype: the
ordering functions of complex numbers (``<``, ``maximum``, ``clamp``, ``relu``, ``copysign``, ...),
``&``/``|``/``^``/``~`` of floats, ``2.5 << t`` and the real-only special functions (``xlogy``, ``lgamma``,
``i0``, ...) raised a bare ``TypeError``, which PyTorch code's ``except RuntimeError`` misses, and
``floor``/``ceil``/``trunc``/``signbit``/``hypot``/``nextafter``/``logaddexp2`` of complex numbers leaked NumPy's
("ufunc 'floor' not supported for the input types"), naming neither the function nor the reason.
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg

Z = lambda: mg.tensor([1 + 2j, -3 - 1j])  # noqa: E731
F = lambda: mg.tensor([1.5, -2.0])  # noqa: E731

COMPLEX_REFUSED = {
    "z < z": lambda z: z < z,
    "z.le(1)": lambda z: z.le(1),
    "mg.gt(z, z)": lambda z: mg.gt(z, z),
    "z >= 0": lambda z: z >= 0,
    "maximum": lambda z: mg.maximum(z, z),
    "z.minimum(z)": lambda z: z.minimum(z),
    "fmax": lambda z: mg.fmax(z, z),
    "fmin": lambda z: z.fmin(z),
    "clamp": lambda z: z.clamp(0, 1),
    "relu": lambda z: mg.relu(z),
    "copysign": lambda z: mg.copysign(z, z),
    "heaviside": lambda z: z.heaviside(z),
    "frac": lambda z: z.frac(),
    "isposinf": lambda z: mg.isposinf(z),
    "xlogy": lambda z: mg.xlogy(z, z),
    "logit": lambda z: z.logit(),
    "erfinv": lambda z: mg.erfinv(z),
    "lgamma": lambda z: z.lgamma(),
    "i0": lambda z: mg.i0(z),
    "floor": lambda z: mg.floor(z),
    "z.ceil()": lambda z: z.ceil(),
    "trunc": lambda z: z.trunc(),
    "signbit": lambda z: mg.signbit(z),
    "hypot": lambda z: mg.hypot(z, z),
    "z.hypot(real)": lambda z: z.hypot(z.real),
    "nextafter": lambda z: mg.nextafter(z, z),
    "logaddexp2": lambda z: mg.logaddexp2(z, 1.0),
}


@pytest.mark.parametrize("spelling", sorted(COMPLEX_REFUSED))
def test_complex_input_without_a_kernel_is_a_runtime_error(spelling):
    with pytest.raises(RuntimeError) as info:
        COMPLEX_REFUSED[spelling](Z())
    assert isinstance(info.value, TypeError) and isinstance(info.value, NotImplementedError)


FLOAT_REFUSED = {
    "f & f": lambda f: f & f,
    "f | 1": lambda f: f | 1,
    "bitwise_xor": lambda f: mg.bitwise_xor(f, f),
    "~f": lambda f: ~f,
    "f.bitwise_not()": lambda f: f.bitwise_not(),
    "int & float": lambda f: mg.tensor([1, 2]) & f,
}

SHIFTS_OF_FLOATS = {
    "2.5 << t": lambda t: 2.5 << t,
    "-0.5 >> t": lambda t: -0.5 >> t,
    "t << 1.5": lambda t: t << 1.5,
    "gcd(t, 2.5)": lambda t: mg.gcd(t, 2.5),
    "lcm(t, 1j)": lambda t: mg.lcm(t, 1j),
}


@pytest.mark.parametrize("spelling", sorted(SHIFTS_OF_FLOATS))
def test_shifts_and_divisors_of_float_numbers_are_a_runtime_error(spelling):
    with pytest.raises(RuntimeError) as info:
        SHIFTS_OF_FLOATS[spelling](mg.tensor([1, 2]))
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("spelling", sorted(FLOAT_REFUSED))
def test_bits_of_floats_are_a_runtime_error(spelling):
    with pytest.raises(RuntimeError, match="only integer and bool tensors have bits") as info:
        FLOAT_REFUSED[spelling](F())
    assert isinstance(info.value, TypeError)


def test_the_words_name_the_function_and_the_reason():
    with pytest.raises(RuntimeError, match="floor is not supported for complex inputs"):
        mg.floor(Z())
    with pytest.raises(RuntimeError, match="signbit is not implemented for complex tensors"):
        mg.signbit(Z())
    with pytest.raises(RuntimeError, match="\"hypot_cpu\" not implemented for 'ComplexFloat'"):
        mg.hypot(Z(), 1.0)
    with pytest.raises(RuntimeError, match="\"nextafter_cpu\" not implemented for 'ComplexDouble'"):
        mg.nextafter(Z().to(mg.complex128), 1.0)


def test_real_inputs_still_answer():
    x = mg.tensor([-1.5, 2.5])
    assert mg.floor(x).tolist() == [-2.0, 2.0] and x.ceil().tolist() == [-1.0, 3.0]
    assert mg.signbit(x).tolist() == [True, False] and mg.hypot(x, 2.0).shape == (2,)
    assert (x < 0).tolist() == [True, False] and (mg.tensor([6]) & 3).tolist() == [2]
