"""NumPy's shape functions that are compositions of registered ops
(ravel, flatten, diag, diagonal, trace, tensordot, dot, inner, outer, kron,
cross, meshgrid, per-element repeat), checked against NumPy with gradients
of first and second order; plus what the op battery's domains leave out
(cumprod with zeros, sort with ties, take_along_axis broadcasting and bounds)
and NumPy's reduction protocol."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import functional as mf
from minigrad_ckpt.testing import gradcheck, gradgradcheck

RNG = np.random.default_rng(14)


def _t(a, requires_grad=True):
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype="float64", requires_grad=requires_grad)


def _check(fn, np_fn, *arrays):
    ts = [_t(a) for a in arrays]
    out = fn(*ts)
    outs = out if isinstance(out, tuple) else (out,)
    expected = np_fn(*arrays)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for o, e in zip(outs, expected):
        assert o.shape == np.shape(e)
        np.testing.assert_allclose(o.numpy(), e, rtol=1e-12, atol=1e-12)
    assert gradcheck(fn, ts)
    assert gradgradcheck(fn, ts)


def r(*shape):
    return RNG.standard_normal(shape)


CASES = [
    ("ravel", mf.ravel, np.ravel, (r(2, 3),)),
    ("flatten", mf.flatten, lambda a: a.flatten(), (r(2, 1, 2),)),
    ("diagonal", mf.diagonal, np.diagonal, (r(3, 4),)),
    ("diagonal offset", lambda a: mf.diagonal(a, 1), lambda a: np.diagonal(a, 1), (r(3, 4),)),
    ("diagonal negative", lambda a: mf.diagonal(a, -2, 2, 0), lambda a: np.diagonal(a, -2, 2, 0),
     (r(3, 2, 4),)),
    ("diagonal empty", lambda a: mf.diagonal(a, 5), lambda a: np.diagonal(a, 5), (r(2, 3),)),
    ("diag of a vector", lambda a: mf.diag(a, 1), lambda a: np.diag(a, 1), (r(3),)),
    ("diag of a vector below", lambda a: mf.diag(a, -2), lambda a: np.diag(a, -2), (r(2),)),
    ("diag of a matrix", lambda a: mf.diag(a, -1), lambda a: np.diag(a, -1), (r(3, 3),)),
    ("trace", mf.trace, np.trace, (r(3, 3),)),
    ("trace batched", lambda a: mf.trace(a, 0, 1, 2), lambda a: np.trace(a, 0, 1, 2), (r(2, 3, 3),)),
    ("tensordot", mf.tensordot, np.tensordot, (r(2, 3, 4), r(3, 4, 2))),
    ("tensordot axes", lambda a, b: mf.tensordot(a, b, ([0, 2], [2, 0])),
     lambda a, b: np.tensordot(a, b, ([0, 2], [2, 0])), (r(2, 3, 4), r(4, 2, 2))),
    ("tensordot 0", lambda a, b: mf.tensordot(a, b, 0), lambda a, b: np.tensordot(a, b, 0), (r(2), r(3))),
    ("dot vectors", mf.dot, np.dot, (r(3), r(3))),
    ("dot matrices", mf.dot, np.dot, (r(2, 3), r(3, 2))),
    ("dot nd-1d", mf.dot, np.dot, (r(2, 2, 3), r(3))),
    ("dot nd-nd", mf.dot, np.dot, (r(2, 3), r(2, 3, 2))),
    ("dot scalar", mf.dot, np.dot, (r(), r(2, 2))),
    ("inner", mf.inner, np.inner, (r(2, 3), r(4, 3))),
    ("outer", mf.outer, np.outer, (r(2, 2), r(3))),
    ("kron", mf.kron, np.kron, (r(2, 2), r(3, 2))),
    ("kron ranks", mf.kron, np.kron, (r(2), r(2, 3))),
    ("cross", mf.cross, np.cross, (r(2, 3), r(3))),
    ("cross axes", lambda a, b: mf.cross(a, b, axisa=0, axisb=1, axisc=0),
     lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0), (r(3, 2), r(2, 3))),
    ("meshgrid xy", lambda a, b: mf.meshgrid(a, b), lambda a, b: np.meshgrid(a, b), (r(3), r(2))),
    ("meshgrid ij sparse", lambda a, b, c: mf.meshgrid(a, b, c, indexing="ij", sparse=True),
     lambda a, b, c: np.meshgrid(a, b, c, indexing="ij", sparse=True), (r(2), r(3), r(1))),
    ("repeat counts", lambda a: mf.repeat(a, [2, 0, 1], axis=1), lambda a: np.repeat(a, [2, 0, 1], axis=1),
     (r(2, 3),)),
    ("repeat flat", lambda a: mf.repeat(a, 2), lambda a: np.repeat(a, 2), (r(2, 2),)),
    ("tile pads reps", lambda a: mf.tile(a, 2), lambda a: np.tile(a, 2), (r(2, 2),)),
    ("tile pads input", lambda a: mf.tile(a, (2, 1, 2)), lambda a: np.tile(a, (2, 1, 2)), (r(2),)),
    ("roll flat", lambda a: mf.roll(a, 2), lambda a: np.roll(a, 2), (r(2, 3),)),
    ("roll axes", lambda a: mf.roll(a, (1, -1), (0, 1)), lambda a: np.roll(a, (1, -1), (0, 1)), (r(2, 3),)),
    ("sort flat", lambda a: mf.sort(a, axis=None), lambda a: np.sort(a, axis=None), (r(2, 3),)),
]


@pytest.mark.parametrize("name, fn, np_fn, arrays", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy_with_gradients(name, fn, np_fn, arrays):
    _check(fn, np_fn, *arrays)


def test_tensor_methods_where_numpy_has_them():
    a = r(3, 3)
    t = _t(a)
    for name, args in [("ravel", ()), ("flatten", ()), ("diagonal", (1,)), ("trace", ()),
                       ("cumprod", (1,)), ("argsort", (0,))]:
        np.testing.assert_allclose(getattr(t, name)(*args).numpy(), getattr(a, name)(*args), rtol=1e-12)
    # dot is PyTorch's on the method (1-D vectors only); mg.dot keeps NumPy's other ranks
    np.testing.assert_allclose(t[0].dot(t[1]).numpy(), a[0].dot(a[1]), rtol=1e-12)
    np.testing.assert_allclose(mg.dot(t, a).numpy(), a.dot(a), rtol=1e-12)
    with pytest.raises(ValueError, match="1-D"):
        t.dot(a)
    # repeat is PyTorch's on the method (it tiles); NumPy's keyword selects NumPy's meaning
    np.testing.assert_allclose(t.repeat(2, axis=0).numpy(), a.repeat(2, 0), rtol=1e-12)
    np.testing.assert_allclose(t.repeat(2, 1).numpy(), np.tile(a, (2, 1)), rtol=1e-12)


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0], [0.0, 0.0], [1.5, -2.0, 0.0]])
def test_cumprod_gradient_with_zeros(values):
    x = _t(values)
    assert gradcheck(mf.cumprod, [x])
    # against the definition: d out_j / d x_i = prod_{k <= j, k != i} x_k
    n = len(values)
    g = RNG.standard_normal(n)
    (gx,) = mg.grad(mf.cumprod(x), [x], grad_outputs=_t(g, False))
    v = np.asarray(values)
    exact = [sum(g[j] * np.prod([v[k] for k in range(j + 1) if k != i]) for j in range(i, n)) for i in range(n)]
    np.testing.assert_allclose(gx.numpy(), exact, rtol=1e-12, atol=1e-15)


def test_sort_gradient_follows_the_permutation_with_ties():
    x = _t([3.0, 1.0, 3.0, 2.0])
    g = np.array([10.0, 20.0, 30.0, 40.0])
    (gx,) = mg.grad(mf.sort(x), [x], grad_outputs=_t(g, False))
    # sorted: 1 (from 1), 2 (from 3), 3 (from 0), 3 (from 2): stable, ties keep their order
    np.testing.assert_array_equal(gx.numpy(), [30.0, 10.0, 40.0, 20.0])
    np.testing.assert_array_equal(mf.argsort(x).numpy(), np.argsort(x.numpy(), kind="stable"))
    with pytest.raises(TypeError, match="structured"):
        mf.sort(x, order="a")
    with pytest.raises(ValueError, match="0-d"):
        mf.sort(_t(1.0))


def test_take_along_axis_broadcasts_wraps_negatives_and_checks_bounds():
    a = r(1, 4)
    idx = np.array([[0, -1], [3, 3], [1, 0]])
    t = _t(a)
    out = mf.take_along_axis(t, idx, axis=1)
    np.testing.assert_array_equal(out.numpy(), np.take_along_axis(np.broadcast_to(a, (3, 4)), idx, 1))
    assert gradcheck(lambda v: mf.take_along_axis(v, idx, axis=1), [t])
    assert gradgradcheck(lambda v: mf.take_along_axis(v * v, idx, axis=1), [t])
    flat = mf.take_along_axis(t, np.array([2, 0]), axis=None)
    np.testing.assert_array_equal(flat.numpy(), a.ravel()[[2, 0]])
    with pytest.raises(IndexError, match="out of bounds"):
        mf.take_along_axis(t, np.array([[4]]), axis=1)
    with pytest.raises(IndexError, match="integers"):
        mf.take_along_axis(t, np.array([[0.5]]), axis=1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        mf.take_along_axis(t, np.array([0]), axis=1)


@pytest.mark.parametrize("fn", ["sum", "prod", "max", "min", "mean"])
def test_numpy_reduction_protocol_stays_on_the_tape(fn):
    a = r(2, 3)
    t = _t(a)
    out = getattr(np, fn)(t, axis=0)
    assert isinstance(out, mg.Tensor) and out.requires_grad
    np.testing.assert_allclose(out.numpy(), getattr(np, fn)(a, axis=0), rtol=1e-12)
    whole = getattr(np, fn)(t)
    assert isinstance(whole, mg.Tensor) and whole.grad_fn is not None
    with pytest.raises(TypeError, match="out= is not supported"):
        getattr(np, fn)(t, out=np.empty(3))
    if fn not in ("max", "min"):  # dtype= reduces in that dtype, the cast on the tape
        single = getattr(np, fn)(t, dtype=np.float32)
        assert single.dtype == np.float32 and single.requires_grad
        np.testing.assert_allclose(single.numpy(), getattr(np, fn)(a, dtype=np.float32), rtol=1e-6)


def test_bad_arguments_are_clear():
    t = _t(r(2, 3))
    with pytest.raises(ValueError, match="3 components"):
        mf.cross(t.T, t.T)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        mf.diagonal(_t(r(3)))
    with pytest.raises(ValueError, match="diagonal dimensions cannot be identical 1, 1"):
        mf.diagonal(t, 0, 1, 1)
    with pytest.raises(ValueError, match="shape mismatch"):
        mf.tensordot(t, t, 1)
    with pytest.raises(ValueError, match="indexing"):
        mf.meshgrid(t, indexing="yx")
    with pytest.raises(ValueError, match="negative"):
        mf.tile(t, -1)
    with pytest.raises(ValueError, match=r"diag\(\): Supports 1D or 2D tensors. Got 3D"):
        mf.diag(_t(r(2, 2, 2)))


def test_diag_of_a_0d_tensor_has_too_few_dims_and_of_a_3d_one_is_a_refused_argument():
    # torch.diag: RuntimeError for both; a 0-d input is the shape ops' too-few-dims error (an
    # IndexError too), a 3-D one is not "too few" dims
    from minigrad_ckpt.functional.errors import RefusedArgument, TooFewDims

    with pytest.raises(TooFewDims, match="Got 0D"):
        mg.diag(mg.tensor(1.0))
    with pytest.raises(RefusedArgument, match="Got 3D") as refused:
        mg.diag(mg.zeros((2, 2, 2)))
    assert isinstance(refused.value, RuntimeError) and not isinstance(refused.value, IndexError)
