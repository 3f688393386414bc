"""The public strategies in ``minigrad_ckpt.testing.strategies`` keep their promises.

Two kinds of checks: ``@given`` properties (every draw is valid: shapes
broadcast, axes are in range, indices index) and ``find`` checks (the
interesting cases -- 0-d, empty, negative axes, ``()``, duplicate indices --
actually show up, so a test written with these strategies really sees them).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, NoSuchExample

import minigrad_ckpt as mg
from minigrad_ckpt.functional import normalize_axis
from minigrad_ckpt.testing import strategies as mst

FIND = settings(max_examples=2000, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def finds(strategy: st.SearchStrategy, condition: Callable[[Any], bool]) -> Any:
    """An example satisfying ``condition`` (fails the test if none turns up)."""
    return find(strategy, condition, settings=FIND)


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


# ------------------------------------------------------------------ shapes
@given(mst.shapes())
def test_shapes_are_in_bounds(shape: tuple[int, ...]) -> None:
    assert isinstance(shape, tuple) and len(shape) <= 4
    assert all(isinstance(n, int) and 0 <= n <= 5 for n in shape)


def test_shapes_include_0d_and_empty() -> None:
    assert finds(mst.shapes(), lambda s: s == ()) == ()
    assert 0 in finds(mst.shapes(), lambda s: len(s) >= 2 and 0 in s)


def test_shapes_respect_min_side() -> None:
    with pytest.raises(NoSuchExample):
        find(mst.shapes(min_dims=1, min_side=1), lambda s: 0 in s, settings=FIND)


# ------------------------------------------------------------------ arrays
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int8", "uint8", "bool"])
@given(data=st.data())
def test_arrays_have_dtype_and_finite_bounded_values(dtype: str, data: Any) -> None:
    a = data.draw(mst.arrays(dtype))
    assert isinstance(a, np.ndarray) and a.dtype == np.dtype(dtype)
    assert a.ndim <= 4
    if a.dtype.kind == "f":
        assert np.all(np.isfinite(a))
        assert np.all(np.abs(a) <= mst.DEFAULT_BOUND)
        assert not np.any((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)), "subnormal value"
    elif a.dtype.kind in "iu":
        assert np.all(np.abs(a.astype(np.int64)) <= mst.DEFAULT_BOUND)


@given(mst.arrays("float64", (4,), elements=st.sampled_from([1.0, 2.0])) | mst.arrays("int8", (3, 2)))
def test_arrays_are_never_all_ones(a: np.ndarray) -> None:
    # with all-ones inputs x * y == x and x ** k == x: a missing factor goes unnoticed
    assert not np.all(a == 1)


@given(mst.arrays("float64", (4, 3), unique=True))
def test_arrays_unique(a: np.ndarray) -> None:
    assert len(np.unique(a)) == a.size


@given(mst.arrays("float32", mst.shapes(max_side=3), elements={"min_value": 0.1, "max_value": 2.0}))
def test_arrays_elements_dict_for_float32(a: np.ndarray) -> None:
    # 0.1 is not a float32; the bound is rounded inwards instead of raising
    assert a.dtype == np.float32
    assert np.all(a >= np.float32(0.1)) and np.all(a <= 2.0)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("bounds", [{"max_value": 0.1}, {"min_value": -0.1}, {"max_value": 1 - 1e-9},
                                    {"min_value": -1e30, "max_value": 1e30}])
def test_a_bound_the_dtype_cannot_hold_is_rounded_inwards(dtype: str, bounds: dict) -> None:
    # float32(0.1) is 0.10000000149 > 0.1 and float32(1 - 1e-9) is 1.0: with NumPy 2's comparison of a
    # float32 and a Python float (in float32, where they are equal) the bound stayed there and 0.10000000149,
    # or 1.0 (atanh's pole, outside "< 1"), was drawn; a bound beyond float16's range overflowed to inf
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        strategy = mst.arrays(dtype, (4,), elements=bounds)
    low, high = bounds.get("min_value", -np.inf), bounds.get("max_value", np.inf)

    @settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def within(a: np.ndarray) -> None:
        assert (a.astype(np.float64) <= high).all() and (a.astype(np.float64) >= low).all()

    within()


def test_arrays_ties_appear() -> None:
    finds(mst.arrays("float64", (6,)), lambda a: len(np.unique(a)) < a.size)


# ------------------------------------------------------------------ tensors
@given(mst.tensors(dtype="float32", shape=mst.shapes(max_side=3), requires_grad=True))
def test_tensors_are_tensors(t: mg.Tensor) -> None:
    assert isinstance(t, mg.Tensor)
    assert t.dtype == np.float32 and t.requires_grad and t.is_leaf and t.grad is None
    assert t.device == "cpu"


@given(mst.tensors(dtype="int64"))
def test_integer_tensors(t: mg.Tensor) -> None:
    assert t.dtype == np.int64 and not t.requires_grad


def test_tensors_reject_int_requires_grad() -> None:
    with pytest.raises(ValueError, match="float"):
        mst.tensors(dtype="int64", requires_grad=True)


def test_tensors_include_0d() -> None:
    assert finds(mst.tensors(), lambda t: t.ndim == 0).shape == ()


# ------------------------------------------------------------------ broadcasting
@pytest.mark.parametrize("n", [1, 2, 3])
@given(data=st.data())
def test_broadcastable_shapes_broadcast(n: int, data: Any) -> None:
    shapes = data.draw(mst.broadcastable_shapes(n))
    assert isinstance(shapes, tuple) and len(shapes) == n
    result = np.broadcast_shapes(*shapes)
    for s in shapes:
        assert isinstance(s, tuple)
        assert np.broadcast_to(np.empty(s), result).shape == result


def test_broadcastable_shapes_cover_size0_size1_and_rank_differences() -> None:
    two = mst.broadcastable_shapes(2)
    finds(two, lambda ss: len(ss[0]) != len(ss[1]))
    # a size-1 axis stretched against a larger one
    finds(two, lambda ss: any(a == 1 and b > 1 for a, b in zip(ss[0][::-1], ss[1][::-1])))
    # a size-1 axis stretched against a size-0 one: the broadcast is empty
    finds(two, lambda ss: any({a, b} == {0, 1} for a, b in zip(ss[0][::-1], ss[1][::-1])))
    finds(two, lambda ss: ss[0] == () or ss[1] == ())


@given(mst.matmul_shapes())
def test_matmul_shapes_are_valid(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    a, b = shapes
    assert len(a) >= 1 and len(b) >= 1
    np.matmul(np.empty(a), np.empty(b))  # raises if invalid


def test_matmul_shapes_cover_1d_and_batches() -> None:
    s = mst.matmul_shapes()
    finds(s, lambda ab: len(ab[0]) == 1)
    finds(s, lambda ab: len(ab[1]) == 1)
    finds(s, lambda ab: len(ab[0]) == 1 and len(ab[1]) == 1)
    # batch axes of different lengths that broadcast
    finds(s, lambda ab: len(ab[0]) >= 3 and len(ab[1]) >= 2 and len(ab[0]) != len(ab[1]))
    finds(s, lambda ab: len(ab[0]) >= 3 and len(ab[1]) >= 3 and ab[0][:-2] != ab[1][:-2])


# ------------------------------------------------------------------ axes
@given(data=st.data())
def test_valid_axes_are_valid(data: Any) -> None:
    ndim = data.draw(st.integers(0, 4))
    single = data.draw(st.booleans())
    allow_none = data.draw(st.booleans()) or (single and ndim == 0)
    axis = data.draw(mst.valid_axes(ndim, single=single, allow_none=allow_none))
    if axis is None:
        assert allow_none
    elif single:
        assert isinstance(axis, int) and -ndim <= axis < ndim
    assert axis is None or isinstance(axis, (int, tuple))
    normalize_axis(axis, ndim)  # raises for out-of-range or repeated axes
    np.sum(np.zeros((2,) * ndim), axis=axis)  # NumPy agrees


def test_valid_axes_cover_none_negative_and_empty_tuple() -> None:
    finds(mst.valid_axes(3), lambda a: a is None)
    finds(mst.valid_axes(3), lambda a: a == ())
    finds(mst.valid_axes(3), lambda a: isinstance(a, int) and a < 0)
    finds(mst.valid_axes(3), lambda a: isinstance(a, tuple) and len(a) >= 2 and min(a) < 0)
    assert finds(mst.valid_axes(0), lambda a: a is not None) == ()


def test_valid_axes_0d_single_needs_none() -> None:
    with pytest.raises(ValueError):
        mst.valid_axes(0, single=True, allow_none=False)


# ------------------------------------------------------------------ indices
@given(data=st.data())
def test_basic_indices_index(data: Any) -> None:
    shape = data.draw(mst.shapes())
    idx = data.draw(mst.basic_indices(shape))
    x = np.arange(_size(shape)).reshape(shape)
    view = x[idx]  # raises if the index does not fit the shape
    if isinstance(view, np.ndarray) and view.size:
        assert np.shares_memory(view, x), "basic indexing gives a view"


def test_basic_indices_cover_negative_steps_none_and_ellipsis() -> None:
    def items(i: Any) -> tuple:
        return i if isinstance(i, tuple) else (i,)

    s = mst.basic_indices((4, 3))
    finds(s, lambda i: any(type(k) is slice and k.step is not None and k.step < 0 for k in items(i)))
    finds(s, lambda i: any(k is None for k in items(i)))
    finds(s, lambda i: any(k is Ellipsis for k in items(i)))
    finds(s, lambda i: any(type(k) is int and k < 0 for k in items(i)))


@given(data=st.data())
def test_integer_array_indices_index(data: Any) -> None:
    shape = data.draw(mst.shapes(min_dims=1))
    idx = data.draw(mst.integer_array_indices(shape))
    assert isinstance(idx, tuple) and 1 <= len(idx) <= len(shape)
    assert all(isinstance(a, np.ndarray) and a.dtype == np.int64 for a in idx)
    assert len({a.shape for a in idx}) == 1
    x = np.zeros(shape)
    x[idx]  # raises if out of range
    # the gradient of x[idx] accumulates: np.add.at counts every occurrence
    counts = np.zeros(shape)
    np.add.at(counts, idx, 1.0)
    assert counts.sum() == idx[0].size * _size(shape[len(idx):])


def test_integer_array_indices_have_duplicates_and_negatives() -> None:
    s = mst.integer_array_indices((5,))
    finds(s, lambda i: i[0].size >= 2 and len(np.unique(i[0])) < i[0].size)
    finds(s, lambda i: np.any(i[0] < 0))
    finds(s, lambda i: i[0].ndim == 0)
    finds(s, lambda i: i[0].size == 0)


def test_integer_array_indices_on_an_empty_axis() -> None:
    idx = finds(mst.integer_array_indices((0, 3)), lambda i: True)
    assert idx[0].size == 0
    np.zeros((0, 3))[idx]


def test_integer_array_indices_reject_0d() -> None:
    with pytest.raises((ValueError, InvalidArgument)):
        finds(mst.integer_array_indices(()), lambda i: True)


@given(data=st.data())
def test_boolean_masks_index(data: Any) -> None:
    shape = data.draw(mst.shapes())
    mask = data.draw(mst.boolean_masks(shape))
    assert mask.dtype == np.bool_ and mask.shape == shape[:mask.ndim]
    x = np.zeros(shape)
    assert x[mask].shape == (int(mask.sum()),) + shape[mask.ndim:]


def test_boolean_masks_cover_full_partial_and_0d() -> None:
    s = mst.boolean_masks((2, 3))
    finds(s, lambda m: m.shape == (2, 3) and m.any() and not m.all())
    finds(s, lambda m: m.shape == (2,))
    finds(s, lambda m: m.ndim == 0)
    assert finds(mst.boolean_masks((2, 3), ndim=1), lambda m: True).shape == (2,)
