"""NumPy's ufuncs on tensors: ``np.exp(loss)``, ``np.sqrt(var)``, ``np.isnan(t).any()``.

``Tensor.__array_ufunc__`` was ``None`` (so that ``array * tensor`` reached Tensor's reflected
operator), which made NumPy refuse every ufunc of a tensor ("operand 'Tensor' does not support
ufuncs"); PyTorch's tensors answer a tensor (NumPy's computation on the values, through
``__array__``).  Found by a probe of PyTorch's test/test_numpy_interop.py.  Now a plain call of a
ufunc the engine has is the engine's function (differentiable, on the tensor's device, PyTorch's
dtypes), ``array <op> tensor`` still Tensor's operator, and the rest NumPy's computation on the
values -- refused, in PyTorch's words, for a tensor that requires grad.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.functional import numpy_ufuncs

VALUES = [0.5, -1.25, 2.0, 9.0]
REFUSED = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("ufunc", [np.sin, np.exp, np.abs, np.negative, np.square, np.tanh, np.log1p, np.sign])
def test_a_unary_ufunc_is_the_engines_function(ufunc, dtype, device):
    t = mg.tensor(VALUES, dtype=dtype, device=device)
    got = ufunc(t)
    assert isinstance(got, mg.Tensor) and got.dtype == dtype and got.device == t.device
    with np.errstate(all="ignore"):
        want = ufunc(np.array(VALUES, dtype=str(dtype).split(".")[-1]))
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=2e-7 if dtype == mg.float32 else 1e-15)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_comparisons_and_tests_give_bool_tensors(device):
    t = mg.tensor([1.0, float("nan"), 3.0], device=device)
    assert np.greater_equal(t, 2).tolist() == [False, False, True]
    assert np.isnan(t).dtype == mg.bool and bool(np.isnan(t).any())
    assert np.isfinite(t).tolist() == [True, False, True]
    b = mg.tensor([True, False], device=device)
    assert np.logical_not(b).tolist() == [False, True] and np.logical_and(b, True).tolist() == [True, False]
    assert np.invert(b).tolist() == [False, True]  # (~ of a bool tensor: logical not, as PyTorch's)


def test_integral_tensors_keep_pytorchs_dtypes():
    i = mg.tensor([4, -9, 16])
    assert np.abs(i).dtype == mg.int64 and np.abs(i).tolist() == [4, 9, 16]
    assert np.add(i, 1).dtype == mg.int64
    assert np.floor_divide(i, 2).tolist() == [2, -5, 8]
    # PyTorch's sqrt of an integer tensor is in the default float dtype (NumPy's would be float64)
    assert np.sqrt(i[:1]).dtype == mg.float32 and np.sqrt(i[:1]).tolist() == [2.0]
    # np.reciprocal of an integer is NumPy's integer reciprocal, not PyTorch's float one
    assert np.reciprocal(mg.tensor([1, 2])).tolist() == [1, 0]


def test_a_ufunc_of_a_tensor_that_requires_grad_is_differentiable():
    w = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    (np.exp(w) + np.sin(w) + np.maximum(w, 1.0)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([0.5, 2.0]) + np.cos([0.5, 2.0]) + [0.0, 1.0], rtol=1e-15)


@pytest.mark.parametrize("call", [lambda w: np.spacing(w), lambda w: np.add.reduce(w),
                                  lambda w: np.add(w, 1.0, out=np.empty(2)), lambda w: np.sin(w, dtype=np.float64),
                                  lambda w: np.reciprocal(w)],
                         ids=["no-engine-function", "reduce", "out", "keyword", "meaning-differs"])
def test_numpys_computation_refuses_a_tensor_that_requires_grad(call):
    w = mg.tensor([0.5, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=REFUSED.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        call(w)
    with mg.no_grad():  # PyTorch's numpy() refuses only where grad mode records
        call(w)


def test_ufuncs_the_engine_lacks_are_numpys_on_the_values():
    t = mg.tensor([1.5, -2.25], dtype=mg.float64)
    got = np.spacing(t)
    assert isinstance(got, mg.Tensor) and got.dtype == mg.float64
    assert got.tolist() == np.spacing(np.array([1.5, -2.25])).tolist()
    frac, whole = np.modf(t)
    assert isinstance(frac, mg.Tensor) and frac.tolist() == [0.5, -0.25] and whole.tolist() == [1.0, -2.0]
    q, r = divmod(np.array([7.0, 7.0]), mg.tensor([2.0, -2.0]))
    assert q.tolist() == [3.0, -4.0] and r.tolist() == [1.0, -1.0]


def test_ufunc_methods_are_numpys_on_the_values():
    t = mg.tensor([1.0, 4.0, 9.0])
    total = np.add.reduce(t)
    assert isinstance(total, mg.Tensor) and total.dtype == mg.float32 and total.shape == () and total.item() == 14.0
    assert np.maximum.accumulate(mg.tensor([1, 3, 2])).tolist() == [1, 3, 3]
    assert np.multiply.outer(t[:2], t[:2]).tolist() == [[1.0, 4.0], [4.0, 16.0]]
    assert np.add.reduceat(t, [0, 2]).tolist() == [5.0, 9.0]
    a = np.zeros(2)
    assert np.add.at(a, [0, 0, 1], mg.tensor([1.0, 2.0, 5.0])) is None
    assert a.tolist() == [3.0, 5.0]
    with pytest.raises(ValueError, match="read-only"):  # NumPy may not write a tensor behind the engine's back
        np.add.at(t, [0], 1.0)


def test_out_names_arrays_and_is_numpys_answer():
    t = mg.tensor([1.0, 4.0])
    out = np.empty(2)
    assert np.add(t, 1.0, out=out) is out and out.tolist() == [2.0, 5.0]
    a = np.ones(2)
    b = a
    b += t  # an array's in-place operator writes the array (NumPy had refused it)
    assert b is a and type(a) is np.ndarray and a.tolist() == [2.0, 5.0]
    with pytest.raises(TypeError, match="out= must be NumPy arrays"):
        np.add(t, 1.0, out=mg.zeros(2))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_an_array_beside_a_tensor_is_still_tensors_operator(dtype):
    """``a <op> t`` is ``np.<ufunc>(a, t)`` now, and must stay what Tensor's reflected operator gives."""
    a = np.array([3.0, 1.5])
    for op in ["add", "sub", "mul", "truediv", "pow", "lt", "ge", "eq"]:
        x = mg.tensor([2.0, 0.5], dtype=dtype, requires_grad=True)
        got = getattr(operator, op)(a, x)
        reflected = {"lt": "__gt__", "ge": "__le__", "eq": "__eq__"}.get(op, f"__r{op}__")
        x2 = mg.tensor([2.0, 0.5], dtype=dtype, requires_grad=True)
        want = getattr(x2, reflected)(a)
        assert isinstance(got, mg.Tensor) and got.dtype == want.dtype and got.tolist() == want.tolist()
        if want.requires_grad:
            got.sum().backward()
            want.sum().backward()
            assert x.grad.tolist() == x2.grad.tolist()


def test_a_numpy_scalar_on_the_left_compares_as_a_number():
    """NumPy's scalars compare through a 0-d array; the operator sees the number, as before."""
    t = mg.tensor([2.0, 0.5])
    with pytest.raises(TypeError, match="complex numbers have no order"):
        _ = np.complex128(1 + 2j) < t
    assert (np.longdouble(1.0) < t).tolist() == [True, False]  # (read as a float, as PyTorch reads it)
    assert (np.float32(1.0) >= t).tolist() == [False, True]


def test_a_device_array_before_a_tensor_still_reaches_its_reflected_operator():
    """CuPy's operators ask the operand itself for ``__array_ufunc__`` and defer to its reflected
    operator where that is None: an instance answers None (the class holds NumPy's handler), so
    ``device_array * t`` is ``t.__rmul__(device_array)`` -- differentiable -- as before NumPy's
    ufuncs took tensors; the strict device follows CuPy's rule."""
    w = mg.tensor([1.0, 4.0], device="strict", requires_grad=True)
    raw = (mg.ones(2, device="strict") * 3).detach()._data
    out = raw * w
    assert isinstance(out, mg.Tensor) and out.device.type == "strict" and out.tolist() == [3.0, 12.0]
    out.sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    assert w.__array_ufunc__ is None and callable(type(w).__array_ufunc__)
    with pytest.raises(TypeError, match="can't convert strict:0 device type tensor to numpy"):
        np.spacing(w.detach())


def test_inside_transforms_and_checkpoint():
    x = mg.tensor([0.5, 2.0], dtype=mg.float64)
    np.testing.assert_allclose(mg.func.grad(lambda v: np.sin(v).sum())(x).numpy(), np.cos([0.5, 2.0]), rtol=1e-15)
    batch = mg.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=mg.float64)
    np.testing.assert_allclose(mg.func.vmap(np.exp)(batch).numpy(), np.exp(batch.numpy()), rtol=1e-15)
    assert mg.func.vmap(np.spacing)(batch).tolist() == np.spacing(batch.numpy()).tolist()
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        mg.func.grad(lambda v: np.spacing(v).sum())(x)
    w = x.clone().requires_grad_()
    mg.checkpoint.checkpoint(lambda v: np.exp(v) * np.cos(v), w, use_reentrant=False).sum().backward()
    want = np.exp([0.5, 2.0]) * (np.cos([0.5, 2.0]) - np.sin([0.5, 2.0]))
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-14)


def test_every_numpy_ufunc_name_the_engine_has_is_placed():
    """A NumPy ufunc whose name the engine exports is dispatched to it, an operator, or named as
    meaning something else: a new engine function of a ufunc's name must be looked at."""
    names = {v.__name__ for v in vars(np).values() if isinstance(v, np.ufunc) and hasattr(mg, v.__name__)}
    operators = {u.__name__ for u in numpy_ufuncs._OPERATORS}
    placed = set(numpy_ufuncs.SAME_MEANING) | operators | set(numpy_ufuncs.MEANING_DIFFERS) | set(numpy_ufuncs.ALIASES)
    assert names - placed == set()


def test_sign_of_a_complex_tensor_is_numpys_z_over_its_modulus():
    """NumPy 2's ``np.sign`` of a complex number is ``z / |z|`` (0 at 0), PyTorch's ``sgn``; the
    engine's ``sign`` refuses complex input as PyTorch's does, so the ufunc is ``mg.sgn``, which is
    ``sign`` on real input."""
    z = np.array([1 + 1j, 0j, -3j, 2.0 + 0j])
    np.testing.assert_allclose(np.sign(mg.tensor(z)).numpy(), np.sign(z), rtol=1e-15)
    assert np.sign(mg.tensor([-2.0, 0.0, 3.0])).tolist() == [-1.0, 0.0, 1.0]
    assert np.sign(mg.tensor([-2, 0, 3])).dtype == mg.int64

