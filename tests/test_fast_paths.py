"""Each shortcut on a hot path gives what the general path it skips gives.

* ``x ** n`` for a float ``x`` and an integer ``n >= 0`` runs without
  ``errstate`` (nothing to silence): the same values, and still no warning;
* ``mean`` of float32/float64 is the sum divided by the count (NumPy's
  ``mean`` divides in float64 for float32, which rounds the same: double
  rounding is innocuous for division); other dtypes keep ``numpy.mean``;
* ``Module.parameters()`` walks the modules without building names: the same
  parameters, in the same order, as ``named_parameters()``;
* ``expand_dims`` with one int axis and ``concatenate``'s shape check;
* ``x ** y`` straight to the op, with ``pow(x, y, m)`` refused as for NumPy's arrays.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import nn


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 7])
def test_a_power_by_a_natural_number_warns_never_and_gives_pytorchs_values(dtype, n):
    # NumPy's power, but x ** 3: PyTorch's pow kernel multiplies, x * x * x (C's pow is an ulp off at times)
    values = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3e38, 1e-45], dtype=dtype)
    x = mg.tensor(values, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning is NumPy's too: compare under its errstate
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            y = x ** n
            want = values * values * values if n == 3 else values ** n
            y.sum().backward()
    assert y.dtype == want.dtype and np.array_equal(y.numpy(), want, equal_nan=True)
    assert x.grad is not None


def test_a_negative_or_fractional_power_is_still_silent_at_zero():
    x = mg.tensor([0.0, -1.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [(x ** -1).numpy(), (x ** 0.5).numpy()]
    with np.errstate(divide="ignore", invalid="ignore"):
        want = [x.numpy() ** -1, x.numpy() ** 0.5]
    for g, w in zip(got, want):
        assert np.array_equal(g, w, equal_nan=True)


@pytest.mark.parametrize("modulo", [3, 2.0, mg.tensor(3.0)])
def test_pow_with_a_modulus_is_pythons_type_error_as_for_numpy_arrays(modulo):
    x = mg.tensor([2.0, 3.0])
    with pytest.raises(TypeError) as ours:
        pow(x, 2, modulo)
    if isinstance(modulo, mg.Tensor):
        assert str(ours.value) == "unsupported operand type(s) for ** or pow(): 'Tensor', 'int', 'Tensor'"
    else:  # (a float modulus: float's own error, which Python tries next)
        with pytest.raises(TypeError) as numpys:
            pow(np.array([2.0, 3.0]), 2, modulo)
        assert str(ours.value) == str(numpys.value).replace("numpy.ndarray", "Tensor")
    assert x.__pow__(2, modulo) is NotImplemented and x.__rpow__(2, modulo) is NotImplemented  # (3.14 tries __rpow__)
    # without a modulus the power is the operator's, whatever the exponent's kind
    for y in (2, 2.0, mg.tensor(2.0), np.float64(2.0)):
        assert np.array_equal(pow(x, y).numpy(), [4.0, 9.0]) and np.array_equal((x ** y).numpy(), [4.0, 9.0])
    with pytest.raises(TypeError, match="'Tensor' and 'list'"):  # a list exponent: PyTorch's TypeError too
        x ** [2.0, 2.0]


_DTYPES = ["float16", "float32", "float64", "complex64", "complex128", "int32", "int64"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_DTYPES), st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_mean_is_numpys_mean_bitwise(dtype, shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    scale = 10.0 ** rng.uniform(-3, 3, size=shape)  # float16 holds up to 65504
    raw = rng.standard_normal(shape) * scale
    x = (raw + 1j * rng.standard_normal(shape) if dtype.startswith("complex") else raw)
    x = (np.round(x * 7) if dtype.startswith("int") else x).astype(dtype)
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                               st.sets(st.integers(0, ndim - 1), min_size=1).map(tuple)))
    keepdims = data.draw(st.booleans())
    want = np.mean(x, axis=axis, keepdims=keepdims)
    got = mg.mean(mg.tensor(x), axis=axis, keepdims=keepdims).numpy()
    assert got.dtype == np.asarray(want).dtype
    assert np.array_equal(got, want, equal_nan=True)


class _Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 3)
        self.b.weight = self.a.weight  # tied: listed once, under its first name
        self.shared = nn.Sequential(self.a, nn.ReLU(), nn.Sequential(self.a, nn.Tanh()))  # a module twice
        self.lstm = nn.LSTM(3, 2, num_layers=2)
        self.empty = nn.Sequential()


class _Renamed(nn.Linear):
    """An override of named_parameters decides what parameters() lists, as in PyTorch."""

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield "weight", self.weight


@pytest.mark.parametrize("make", [_Tied, lambda: nn.Sequential(_Tied(), nn.Linear(3, 1)),
                                  lambda: _Renamed(2, 2), lambda: nn.TransformerBlock(4, 2)])
@pytest.mark.parametrize("recurse", [True, False])
def test_parameters_are_named_parameters_without_names(make, recurse):
    m = make()
    want = [id(p) for _, p in m.named_parameters(recurse=recurse)]
    assert [id(p) for p in m.parameters(recurse=recurse)] == want
    assert want or not recurse  # something to compare, for every model here


@pytest.mark.parametrize("axis", [-4, -3, -2, -1, 0, 1, 2, 3])
def test_expand_dims_of_one_axis_is_numpys(axis):
    x = np.arange(6.0).reshape(2, 3)
    if not -3 <= axis < 3:
        with pytest.raises(ValueError, match="out of bounds"):
            mg.expand_dims(mg.tensor(x), axis)
        return
    assert mg.expand_dims(mg.tensor(x), axis).shape == np.expand_dims(x, axis).shape
    assert mg.expand_dims(mg.tensor(x), (axis,)).shape == np.expand_dims(x, axis).shape


def test_concatenate_checks_every_axis_but_its_own():
    a, b = mg.zeros((2, 3, 4)), mg.zeros((2, 5, 4))
    assert mg.concatenate([a, b, a], axis=1).shape == (2, 11, 4)
    for bad in (mg.zeros((2, 5, 3)), mg.zeros((3, 5, 4)), mg.zeros((2, 5))):
        with pytest.raises(ValueError, match="differ outside axis 1"):
            mg.concatenate([a, bad], axis=1)


# ---------------------------------------------------------------- the shortcuts at the seams
@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
def test_power_and_mean_shortcuts_under_transforms_checkpointing_and_in_place_writes(device, dtype):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from minigrad_ckpt import checkpoint as ck

    values = np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]], dtype=dtype)
    x = mg.tensor(values).to(device)
    tol = 1e-5 if dtype == "float32" else 1e-12

    def f(t):
        return mg.mean(t ** 3, axis=1).sum()  # d/dt: 3 t^2 / 3 = t^2 per element

    got = mg.func.grad(f)(x).numpy()
    assert got.dtype == np.dtype(dtype) and np.allclose(got, values ** 2, rtol=tol)
    _, tangent = mg.func.jvp(f, (x,), (mg.ones_like(x),))  # sum of t^2
    assert np.allclose(tangent.numpy(), (values ** 2).sum(), rtol=tol)
    hess = mg.func.hessian(f)(x).numpy().reshape(6, 6)
    assert np.allclose(hess, np.diag(2 * values.ravel()), rtol=tol, atol=tol)
    # checkpointed, bitwise the plain gradient; and after an in-place write recorded on the tape
    plain = mg.tensor(values).to(device).requires_grad_()
    f(plain).backward()
    ckpt = mg.tensor(values).to(device).requires_grad_()
    ck.checkpoint(f, ckpt).backward()
    assert np.array_equal(ckpt.grad.numpy(), plain.grad.numpy())
    w = mg.tensor(values).to(device).requires_grad_()
    h = w * 1.0
    h **= 2  # recorded in place: h = w^2
    mg.mean(h).backward()
    assert np.allclose(w.grad.numpy(), 2 * values / values.size, rtol=tol)
