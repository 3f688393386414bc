"""Hypothesis strategies for property-testing code written with minigrad_ckpt.

Property-based testing asks "does this hold for *every* input?" instead of
"does it hold for the three inputs I thought of?".  Hypothesis draws the
inputs; when a property fails it *shrinks* the failing input to a minimal one
(often a 0-d tensor, an empty array or a duplicate index) and replays it on
every later run.  These strategies are the ones minigrad_ckpt's own op
battery uses, so your tests see the inputs that have broken autograd engines
before:

* **0-d and empty arrays.**  ``hypothesis.extra.numpy.array_shapes`` excludes
  them by default; :func:`shapes` includes them unless told otherwise.
* **Broadcasting**, including size-0 and size-1 axes (the classic "gradient
  not summed back to the input's shape" bug): :func:`broadcastable_shapes`,
  :func:`matmul_shapes`.
* **Axes** as ``None``, an int, a negative int, a tuple or the empty tuple
  ``()``: :func:`valid_axes`.
* **Indices** with negative-step slices, ``None`` and ``...``
  (:func:`basic_indices`), integer arrays with *repeated* entries, whose
  gradient must accumulate (:func:`integer_array_indices`), and boolean masks
  (:func:`boolean_masks`).
* **Values** that are finite, bounded and non-trivial: never all ones, the
  value that hides a missing multiplication (:func:`arrays`, :func:`tensors`).

Example -- check the gradient of your own function on every shape::

    from hypothesis import given
    import minigrad_ckpt as mg
    from minigrad_ckpt.testing import gradcheck, strategies as mst

    @given(mst.tensors(dtype="float64", shape=mst.shapes(max_side=3), requires_grad=True))
    def test_softplus_gradient(x):
        assert gradcheck(lambda t: mg.log1p(mg.exp(t)), x)

Combine strategies with ``st.data()`` when one draw depends on another::

    from hypothesis import strategies as st

    @given(st.data())
    def test_sum_any_axes(data):
        x = data.draw(mst.tensors(shape=mst.shapes(max_dims=3)))
        axis = data.draw(mst.valid_axes(x.ndim))
        assert mg.sum(x, axis=axis).shape == np.sum(x.numpy(), axis=axis).shape

Keep sizes small (the defaults give at most 5 per axis and 4 axes; use
``max_side``/``max_dims`` to shrink further): finite-difference gradient
checks cost two function evaluations per input element.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..backend import as_dtype
from ..tensor import Tensor

__all__ = [
    "shapes",
    "arrays",
    "tensors",
    "broadcastable_shapes",
    "matmul_shapes",
    "valid_axes",
    "basic_indices",
    "integer_array_indices",
    "boolean_masks",
]

Shape = tuple[int, ...]

#: The default magnitude bound of drawn values: large enough to be
#: non-trivial, small enough that ``exp``/products of a few of them stay finite.
DEFAULT_BOUND = 10.0


def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 0,
           max_side: int = 5) -> st.SearchStrategy[Shape]:
    """Array shapes, **including 0-d ``()`` and empty (size-0 axis) shapes** by default.

    ``hypothesis.extra.numpy.array_shapes`` defaults to ``min_dims=1,
    min_side=1``, which silently never tests scalars or empty arrays; this
    strategy defaults to ``0`` for both.  Pass ``min_side=1`` for ops that
    reject empty inputs.  Shrinks towards ``()``.
    """
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def _element_strategy(dtype: np.dtype, elements: Any, bound: float) -> st.SearchStrategy:
    """Elements for ``dtype``: a strategy as given, or ``from_dtype`` with safe defaults.

    ``elements`` may be a strategy (used as is), a dict of
    ``hypothesis.extra.numpy.from_dtype`` keyword arguments (merged over the
    defaults), or None (the defaults: finite, no subnormals, within
    ``[-bound, bound]``; integers within the same range clipped to the dtype).
    """
    if isinstance(elements, st.SearchStrategy):
        return elements
    kwargs: dict[str, Any] = {}
    if dtype.kind == "f":
        kwargs = {"min_value": -bound, "max_value": bound, "allow_nan": False,
                  "allow_infinity": False, "allow_subnormal": False}
    elif dtype.kind == "c":  # complex: both parts finite, no subnormals, |z| <= bound
        kwargs = {"max_magnitude": bound, "allow_nan": False, "allow_infinity": False,
                  "allow_subnormal": False}
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        kwargs = {"min_value": max(int(info.min), -int(bound)),
                  "max_value": min(int(info.max), int(bound))}
    if elements is not None:
        if not isinstance(elements, Mapping):
            raise TypeError("elements must be a strategy, a dict of from_dtype arguments, or None")
        kwargs.update(elements)
    if dtype.kind == "f" and dtype.itemsize < 8:
        # Bounds such as 0.1 are not exactly representable in float32/float16 and
        # Hypothesis rejects them: round them inwards to the nearest value that is
        # (a bound beyond the dtype's range is its largest finite value).
        biggest = float(np.finfo(dtype).max)
        for key, toward in (("min_value", np.inf), ("max_value", -np.inf)):
            v = kwargs.get(key)
            if v is not None and np.isfinite(v):
                v = min(max(v, -biggest), biggest)
                r = dtype.type(v)
                # compared as Python floats: NumPy 2 compares a float32 with a Python float in
                # float32, where the rounded bound equals the bound and would never move inwards
                if (float(r) < v) if toward > 0 else (float(r) > v):
                    r = np.nextafter(r, dtype.type(toward))
                kwargs[key] = float(r)
    return hnp.from_dtype(dtype, **kwargs)


def _not_all_ones(a: np.ndarray) -> bool:
    return a.size < 2 or a.dtype.kind == "b" or not bool(np.all(a == 1))


def arrays(dtype: Any, shape: Shape | st.SearchStrategy[Shape] | None = None,
           elements: Any = None, *, unique: bool = False, fill: st.SearchStrategy | None = None,
           bound: float = DEFAULT_BOUND) -> st.SearchStrategy[np.ndarray]:
    """NumPy arrays of ``dtype`` with finite, bounded, non-trivial values.

    ``shape`` is a tuple, a strategy of tuples, or None for :func:`shapes`.
    ``elements`` is a strategy, a dict of ``from_dtype`` arguments (e.g.
    ``{"min_value": 0.1}`` for a log's domain), or None: floats in
    ``[-bound, bound]`` without NaN, infinities or subnormals; integers in the
    same range; complex numbers with finite parts and ``|z| <= bound``.
    ``unique=True`` makes all elements distinct (no ties: use it for
    ``max``/``sort``-like functions).  ``fill`` is passed to
    ``hypothesis.extra.numpy.arrays``: by default Hypothesis may fill large
    arrays with one repeated value, which is how ties appear.

    Numeric arrays with two or more elements are **never all ones**: with
    all-ones inputs ``x * y == x``, ``x ** k == x`` and ``sum == size``, so
    a missing factor or a mixed-up operand goes unnoticed.
    """
    dt = as_dtype(dtype)
    shp = shapes() if shape is None else shape
    strategy = hnp.arrays(dt, shp, elements=_element_strategy(dt, elements, bound), fill=fill,
                          unique=unique)
    return strategy.filter(_not_all_ones)


def tensors(dtype: Any = "float64", shape: Shape | st.SearchStrategy[Shape] | None = None,
            elements: Any = None, requires_grad: bool = False, device: Any = None, *,
            unique: bool = False, bound: float = DEFAULT_BOUND) -> st.SearchStrategy[Tensor]:
    """:class:`minigrad_ckpt.Tensor` values drawn through :func:`arrays`.

    The tensor owns a fresh copy of the drawn array, on ``device`` (the
    default device for None).  ``requires_grad=True`` needs a float or complex
    dtype.  Use ``float64`` (the default) or ``complex128`` for gradient checks:
    finite differences in single precision are too noisy to be trusted.
    """
    dt = as_dtype(dtype)
    if requires_grad and dt.kind not in "fc":
        raise ValueError(f"tensors: requires_grad=True needs a float or complex dtype, got {dt}")
    return arrays(dt, shape, elements, unique=unique, bound=bound).map(
        lambda a: Tensor._from_data(a, dtype=dt, device=device, requires_grad=requires_grad))


def broadcastable_shapes(num_shapes: int = 2, min_dims: int = 0, max_dims: int = 4,
                         min_side: int = 0, max_side: int = 5) -> st.SearchStrategy[tuple[Shape, ...]]:
    """A tuple of ``num_shapes`` shapes that broadcast together under NumPy's rules.

    Shapes differ in length (missing leading axes) and have size-1 axes that
    stretch, and -- with the default ``min_side=0`` -- size-0 axes, which
    broadcast against size 1 to size 0.  The broadcast result is
    ``numpy.broadcast_shapes(*shapes)``.
    """
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=min_dims, max_dims=max_dims, min_side=min_side,
        max_side=max_side,
    ).map(lambda b: tuple(b.input_shapes))


def matmul_shapes(max_batch_dims: int = 2, min_side: int = 0,
                  max_side: int = 4) -> st.SearchStrategy[tuple[Shape, Shape]]:
    """Pairs ``(a_shape, b_shape)`` valid for ``numpy.matmul``.

    Drawn from NumPy's gufunc signature ``(n?,k),(k,m?)->(n?,m?)``, so the
    pairs include 1-D operands (promoted to a row/column and the added axis
    removed again), batch axes of different lengths that broadcast against
    each other, and -- with ``min_side=0`` -- empty core and batch axes (a
    ``k = 0`` product is all zeros).  ``max_batch_dims`` bounds the batch axes.
    """
    return hnp.mutually_broadcastable_shapes(
        signature=np.matmul.signature, min_dims=0, max_dims=max_batch_dims,
        min_side=min_side, max_side=max_side,
    ).map(lambda b: tuple(b.input_shapes))


def valid_axes(ndim: int, single: bool = False,
               allow_none: bool = True) -> st.SearchStrategy[int | tuple[int, ...] | None]:
    """``axis=`` arguments valid for an array of ``ndim`` dimensions.

    With ``single=False``: ``None`` (when ``allow_none``), an int, or a tuple of
    distinct axes -- including the empty tuple ``()`` (reduce over nothing)
    and negative axes (``-1`` is the last).  With ``single=True``: ``None``
    or one int in ``[-ndim, ndim)``.  A 0-d array has no int axis, so there
    the only choices are ``None`` and ``()``.  Shrinks towards ``None``/``()``.
    """
    if ndim < 0:
        raise ValueError(f"valid_axes: ndim must be >= 0, got {ndim}")
    options: list[st.SearchStrategy] = []
    if allow_none:
        options.append(st.none())
    if ndim > 0:
        options.append(st.integers(-ndim, ndim - 1))
    if not single:
        options.append(hnp.valid_tuple_axes(ndim))
    if not options:
        raise ValueError("valid_axes: a 0-d array has no single axis; pass allow_none=True")
    return st.one_of(*options)


def basic_indices(shape: Shape, *, allow_newaxis: bool = True,
                  allow_ellipsis: bool = True) -> st.SearchStrategy[Any]:
    """Basic (view-producing) indices for an array of ``shape``.

    Ints (negative too), slices (with negative steps, empty ranges and
    out-of-range bounds, which NumPy clips), ``None`` (a new axis) and
    ``Ellipsis``.  The result is a tuple or a single element, exactly what
    ``x[...]`` accepts.  Basic indices never select one element twice.
    """
    return hnp.basic_indices(tuple(shape), min_dims=0, allow_newaxis=allow_newaxis,
                             allow_ellipsis=allow_ellipsis)


@st.composite
def integer_array_indices(draw: st.DrawFn, shape: Shape, *, max_index_dims: int = 2,
                          max_side: int = 4) -> tuple[np.ndarray, ...]:
    """A tuple of integer index arrays for the leading axes of ``shape``.

    One int64 array per indexed axis (at least one axis, so ``shape`` must
    not be 0-d); the arrays share one drawn shape (0-d and empty included),
    and their values lie in ``[-n, n)`` for an axis of length ``n``.  Values
    are drawn from a small pool, so **repeated indices are likely** -- the
    case where ``x[idx]``'s gradient must accumulate (``numpy.add.at``), not
    overwrite.  An indexed axis of length 0 forces an empty index.
    """
    shape = tuple(shape)
    if not shape:
        raise ValueError("integer_array_indices: a 0-d array cannot be indexed by integer arrays")
    k = draw(st.integers(1, len(shape)))
    result_shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_index_dims, min_side=0,
                                         max_side=max_side))
    if any(n == 0 for n in shape[:k]) and 0 not in result_shape:
        result_shape = result_shape + (0,)
    out = []
    for n in shape[:k]:
        if n == 0:
            out.append(np.zeros(result_shape, dtype=np.int64))
            continue
        pool = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))
        arr = draw(hnp.arrays(np.int64, result_shape, elements=st.sampled_from(pool)))
        out.append(arr)
    return tuple(out)


@st.composite
def boolean_masks(draw: st.DrawFn, shape: Shape, ndim: int | None = None) -> np.ndarray:
    """A boolean mask for the leading ``ndim`` axes of ``shape``.

    ``x[mask]`` selects the positions where the mask is true and flattens
    them into one axis.  ``ndim`` (drawn from ``0..len(shape)`` when None)
    is the mask's number of dimensions; its shape is ``shape[:ndim]``.  A 0-d
    mask (``x[True]``/``x[False]``) adds an axis of length 1 or 0.
    """
    shape = tuple(shape)
    k = draw(st.integers(0, len(shape))) if ndim is None else int(ndim)
    if not 0 <= k <= len(shape):
        raise ValueError(f"boolean_masks: ndim={k} is not in [0, {len(shape)}]")
    return draw(hnp.arrays(np.bool_, shape[:k], elements=st.booleans()))
