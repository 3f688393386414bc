"""Hypothesis properties of the operators beyond NumPy's, on drawn shapes, dims and values:
each agrees with NumPy (or a plain loop) on every draw, gather and scatter_add are adjoint,
and forward mode (``mg.func.jacfwd``) equals reverse mode (``mg.func.jacrev``) through a
whole program chaining several of them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad_ckpt as mg

SETTINGS = settings(max_examples=25, deadline=None)
small_shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


@st.composite
def gather_case(draw):
    shape = draw(small_shapes)
    dim = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(0, 5)) if k == dim else draw(st.integers(0, n)) for k, n in enumerate(shape))
    index = draw(hnp.arrays(np.int64, ishape, elements=st.integers(0, shape[dim] - 1)))
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(-5, 5)))
    y = draw(hnp.arrays(np.float64, ishape, elements=st.floats(-5, 5)))
    return x, dim, index, y


@SETTINGS
@given(gather_case())
def test_gather_and_scatter_add_are_adjoint(case):
    x, dim, index, y = case
    lhs = float((mg.gather(mg.tensor(x), dim, index).numpy() * y).sum())
    rhs = float((x * mg.scatter_add(mg.zeros(x.shape, dtype="float64"), dim, index, mg.tensor(y)).numpy()).sum())
    assert np.isclose(lhs, rhs, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(gather_case(), st.sampled_from(["sum", "prod", "mean", "amax", "amin"]), st.booleans())
def test_scatter_reduce_equals_a_loop(case, reduce, include_self):
    x, dim, index, src = case
    groups = {pos: ([x[pos]] if include_self else []) for pos in np.ndindex(*x.shape)}
    hit = np.zeros(x.shape, bool)
    for pos in np.ndindex(*index.shape):
        target = pos[:dim] + (index[pos],) + pos[dim + 1:]
        groups[target].append(src[pos])
        hit[target] = True
    fold = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    want = np.array([fold(groups[p]) if hit[p] else x[p] for p in np.ndindex(*x.shape)]).reshape(x.shape)
    got = mg.scatter_reduce(mg.tensor(x), dim, index, mg.tensor(src), reduce, include_self=include_self)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-300)


@st.composite
def values_along_an_axis(draw, nan=False):
    shape = draw(small_shapes)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    elements = st.floats(-1e3, 1e3) | (st.just(np.nan) if nan else st.nothing())
    return draw(hnp.arrays(np.float64, shape, elements=elements)), axis


@SETTINGS
@given(values_along_an_axis(nan=True), st.lists(st.floats(0, 1), min_size=1, max_size=3),
       st.sampled_from(["linear", "lower", "higher", "nearest", "midpoint"]))
def test_quantiles_and_medians_equal_numpys(case, q, method):
    x, axis = case
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(mg.quantile(mg.tensor(x), q, axis, method=method).numpy(),
                                   np.quantile(x, q, axis, method=method), rtol=1e-12, equal_nan=True)
        np.testing.assert_array_equal(mg.median(mg.tensor(x), axis).numpy(), np.median(x, axis))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanquantile(x, q, axis, method=method)
        np.testing.assert_allclose(mg.nanquantile(mg.tensor(x), q, axis, method=method).numpy(), want,
                                   rtol=1e-12, equal_nan=True)


@SETTINGS
@given(values_along_an_axis())
def test_scans_and_differences_equal_numpys(case):
    x, axis = case
    t = mg.tensor(x)
    np.testing.assert_allclose(mg.logcumsumexp(t, axis).numpy(), np.logaddexp.accumulate(x, axis), rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_array_equal(mg.cummax(t, axis).values.numpy(), np.maximum.accumulate(x, axis))
    np.testing.assert_array_equal(mg.cummin(t, axis).values.numpy(), np.minimum.accumulate(x, axis))
    np.testing.assert_allclose(mg.diff(t, 1, axis).numpy(), np.diff(x, 1, axis))
    np.testing.assert_allclose(mg.trapezoid(t, dx=0.5, axis=axis).numpy(), np.trapezoid(x, dx=0.5, axis=axis))
    if x.shape[axis] >= 2:
        np.testing.assert_allclose(mg.gradient(t, axis=axis).numpy(), np.gradient(x, axis=axis), rtol=1e-12)


@SETTINGS
@given(hnp.arrays(np.float64, small_shapes, elements=st.floats(-1e6, 1e6)),
       hnp.arrays(np.float64, st.just(()), elements=st.floats(-50, 50).filter(lambda v: v != 0)))
def test_floor_divide_equals_numpys(x, y):
    np.testing.assert_array_equal((mg.tensor(x) // mg.tensor(y)).numpy(), np.floor_divide(x, y))
    np.testing.assert_array_equal((float(y) // mg.tensor(x + 0.5)).numpy(), np.floor_divide(float(y), x + 0.5))


@SETTINGS
@given(hnp.arrays(np.int64, small_shapes, elements=st.integers(-3, 3)))
def test_unique_bincount_and_nonzero_equal_numpys(x):
    for got, want in zip(mg.unique(mg.tensor(x), True, True, True), np.unique(x, True, True, True)):
        np.testing.assert_array_equal(got.numpy(), want)
    flat = np.abs(x.ravel())
    np.testing.assert_array_equal(mg.bincount(mg.tensor(flat)).numpy(), np.bincount(flat))
    for got, want in zip(mg.nonzero(mg.tensor(x)), np.nonzero(x)):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(mg.argwhere(mg.tensor(x)).numpy(), np.argwhere(x))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31))
def test_forward_mode_equals_reverse_mode_through_a_program(seed):
    rng = np.random.default_rng(seed)
    index = rng.integers(0, 3, (4, 2))
    x0 = rng.permutation(12).reshape(6, 2) * 0.25 - 1.0

    def program(x):
        pooled = mg.scatter_reduce(x[:3], 0, index, x[2:], "amax", include_self=False)
        spread = mg.logcumsumexp(pooled, 0) + mg.quantile(x, [0.3, 0.6], dim=0).sum(0)
        picked = mg.kthvalue(x, 2, 0).values + mg.nansum(mg.diff(x, dim=0), dim=0)
        return mg.masked_fill(mg.hstack([spread.ravel(), picked]), mg.tensor([True, False] * 4), 0.5)

    x = mg.tensor(x0)
    fwd, rev = mg.func.jacfwd(program)(x), mg.func.jacrev(program)(x)
    np.testing.assert_allclose(fwd.numpy(), rev.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("scalar", [3.5e-112, 1e-50, 1e300, 2.0, 0.0, 2])
def test_floor_divide_by_a_python_number_divides_by_it_rounded_to_the_arrays_dtype(scalar):
    # NumPy rounds a Python number to float32 first: float32 // 1e-50 divides by 0
    x = np.array([np.inf, 5.0, -3.0, 0.0], np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal((mg.tensor(x) // scalar).numpy(), np.floor_divide(x, scalar))
        np.testing.assert_array_equal((scalar // mg.tensor(x)).numpy(), np.floor_divide(scalar, x))
