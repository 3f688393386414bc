"""The op database: one :class:`OpSpec` per registered op (PyTorch's OpInfo idea).

Each spec says how to draw *samples* of its op -- an op instance with the
static attributes ``minigrad_ckpt.functional`` would build, the input values
(NumPy arrays, Python scalars, or ``None`` for an absent optional operand) and
which inputs are differentiable -- plus the tolerances and flags the generic
battery in ``test_op_battery.py`` needs.

Two input domains per op:

``grad=True``   values for gradient checks: finite differences need smooth
                points, so log/sqrt get positive inputs, abs stays away from 0,
                max/min/clip never see ties (values on disjoint grids), var/std
                keep ``N - ddof >= 1`` and non-constant slices.
``grad=False``  values for forward checks: kinks, ties, zeros, singular points
                (``log(0)``, ``x / 0``, ``ddof >= N``) are included on purpose;
                the output is compared with the op's NumPy ``reference``.

Adding an op to the registry without adding a spec here fails the battery.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad_ckpt as mg
from minigrad_ckpt import functional as mf
from minigrad_ckpt.ops import registry
from minigrad_ckpt.ops.ctc import ctc_states
from minigrad_ckpt.ops.indexing import advanced
from minigrad_ckpt.tensor import normalize_index
from minigrad_ckpt.testing import strategies as mst

__all__ = ["Sample", "OpSpec", "Dom", "op_db", "SPECS"]


# ---------------------------------------------------------------------------
# Samples and specs
# ---------------------------------------------------------------------------
@dataclass
class Sample:
    """One drawn application of an op."""

    op: Any
    inputs: tuple          # np.ndarray, Python scalar or None per input
    diff: tuple[bool, ...]  # which inputs gradients are checked for

    def __repr__(self) -> str:
        def show(v: Any) -> str:
            if isinstance(v, np.ndarray):
                return f"array(shape={v.shape}, dtype={v.dtype}, {v.tolist()!r})"
            return repr(v)

        ins = ", ".join(show(v) for v in self.inputs)
        return f"Sample({self.op!r}, inputs=({ins}), diff={self.diff})"


Sampler = Callable[[Any, np.dtype, bool, int], Sample]


@dataclass
class OpSpec:
    """How the battery exercises one op.

    ``sampler(draw, dtype, grad, max_size)`` draws one :class:`Sample`; use
    :meth:`samples` to get a Hypothesis strategy.  ``forward_dtypes`` are the
    input dtypes the forward check runs with (int/bool where NumPy semantics
    make sense).  ``no_gradgrad`` is a reason string when second derivatives
    are not checked.  ``out_dtype(sample, in_dtype)`` is the dtype a float
    input must produce (``in_dtype`` unless the op casts).
    """

    name: str
    sampler: Sampler
    forward_dtypes: tuple[str, ...] = ("float64", "float32")
    forward_only: bool = False
    no_gradgrad: str | None = None
    grad_atol: float = 1e-5
    grad_rtol: float = 1e-3
    eps: float = 1e-6
    out_dtype: Callable[[Sample, np.dtype], np.dtype] | None = None
    notes: str = ""
    #: False where inputs must keep their structure (a stride-0 view repeats rows:
    #: a singular matrix), so the non-contiguous check uses the other layouts only
    broadcast_views: bool = True

    def samples(self, dtype: Any = "float64", *, grad: bool = True,
                max_size: int = 30) -> st.SearchStrategy[Sample]:
        """A strategy of samples with inputs of ``dtype`` in the grad / forward domain."""
        dt = np.dtype(dtype)

        @st.composite
        def _draw(draw: Any) -> Sample:
            return self.sampler(draw, dt, grad, max_size)

        return _draw()

    def expected_dtype(self, sample: Sample, in_dtype: np.dtype) -> np.dtype:
        return np.dtype(self.out_dtype(sample, in_dtype)) if self.out_dtype else np.dtype(in_dtype)


# ---------------------------------------------------------------------------
# Value domains
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Dom:
    """Where a float input's values come from.

    ``[lo, hi]`` uniform floats; ``specials`` exact values mixed in (zeros,
    kinks); ``gap``: magnitudes in ``[gap, hi]`` with a random sign (away
    from 0); ``grid``: values ``k * grid + offset`` -- two inputs on grids with
    different offsets never tie, and ``unique=True`` on one grid gives
    distinct values at least ``grid`` apart.
    """

    lo: float = -5.0
    hi: float = 5.0
    specials: tuple[float, ...] = ()
    gap: float | None = None
    grid: float | None = None
    offset: float = 0.0
    unique: bool = False

    def elements(self) -> st.SearchStrategy[float]:
        if self.grid is not None:
            k_lo = math.ceil((self.lo - self.offset) / self.grid)
            k_hi = math.floor((self.hi - self.offset) / self.grid)
            base = st.integers(k_lo, k_hi).map(lambda k: k * self.grid + self.offset)
        elif self.gap is not None:
            base = st.tuples(st.floats(self.gap, self.hi), st.booleans()).map(
                lambda t: t[0] if t[1] else -t[0])
        else:
            base = st.floats(self.lo, self.hi, allow_nan=False, allow_infinity=False,
                             allow_subnormal=False)
        if self.specials:
            return st.one_of(st.sampled_from(self.specials), base)
        return base


REAL = Dom()
WIDE = Dom(-10.0, 10.0, specials=(0.0, 1.0, -1.0))
POSITIVE = Dom(0.2, 5.0)
NONNEG_FWD = Dom(-2.0, 8.0, specials=(0.0, -0.0, 1.0))
# Three tie-free grids (spacing 4/32, offsets 1/32, 2/32, 3/32): values on different grids differ by >= 1/32.
GRID_X = Dom(-4.0, 4.0, grid=0.125, offset=1 / 32)
GRID_Y = Dom(-4.0, 4.0, grid=0.125, offset=2 / 32)
GRID_Z = Dom(-4.0, 4.0, grid=0.125, offset=3 / 32)
DISTINCT = Dom(-4.0, 4.0, grid=1 / 16, offset=1 / 64, unique=True)
UNIT_OPEN = Dom(-0.9, 0.9)  # inside the domain of arcsin/arccos/arctanh, away from the poles at +-1
UNIT_FWD = Dom(-1.5, 1.5, specials=(-1.0, 1.0, 0.0))
AWAY_FROM_0 = Dom(0.25, 4.0, gap=0.25)
WITH_NEG_INF = Dom(-10.0, 10.0, specials=(-math.inf, 0.0))
ODD_HALVES = Dom(-4.0, 4.0, grid=1.0, offset=0.5)
DIVISOR_FWD = Dom(-3.0, 3.0, specials=(0.0, 1.0, -1.5, 0.5))
# Ties and repeated values on purpose (forward checks of max/min/argmax/comparisons).
TIES = Dom(-2.0, 2.0, grid=0.5)
PROBABILITY_FWD = Dom(0.0, 1.0, specials=(0.0, 1.0))


def _arr(draw: Any, shape: tuple[int, ...], dtype: np.dtype, dom: Dom = REAL) -> np.ndarray:
    """An array of ``shape``/``dtype`` with values from ``dom`` (small ints for int dtypes)."""
    if dtype.kind == "b":
        return draw(hnp.arrays(np.bool_, shape, elements=st.booleans()))
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -5
        hi = 5
        if dom.unique:
            lo, hi = (0, 100) if dtype.kind == "u" else (-50, 50)
        return draw(mst.arrays(dtype, shape, st.integers(lo, hi), unique=dom.unique))
    a = draw(mst.arrays(np.float64, shape, dom.elements(), unique=dom.unique))
    return a.astype(dtype)


def _scalar(draw: Any, dtype: np.dtype, dom: Dom = REAL) -> Any:
    """A Python scalar constant (weakly typed: it takes the array's dtype)."""
    if dtype.kind == "b":
        return draw(st.booleans())
    if dtype.kind in "iu":
        return draw(st.integers(0 if dtype.kind == "u" else -5, 5))
    return float(draw(dom.elements()))


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _shape(draw: Any, max_size: int, *, min_dims: int = 0, max_dims: int = 4, min_side: int = 0,
           max_side: int = 4) -> tuple[int, ...]:
    """A shape (0-d and empty included) with at most ``max_size`` elements."""
    shape = list(draw(mst.shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                 max_side=max_side)))
    while _size(tuple(shape)) > max_size:
        i = int(np.argmax(shape))
        shape[i] -= 1
    return tuple(shape)


def _bshapes(draw: Any, n: int, max_size: int) -> tuple[tuple[int, ...], ...]:
    """``n`` mutually broadcastable shapes whose broadcast has at most ``max_size`` elements."""
    shapes = draw(mst.broadcastable_shapes(n, max_dims=3, max_side=3))
    assume(_size(np.broadcast_shapes(*shapes)) <= max_size)
    return shapes


def _diff(draw: Any, candidates: list[bool]) -> tuple[bool, ...]:
    """Which candidate inputs require grad: a random non-empty subset of the candidates."""
    idx = [i for i, c in enumerate(candidates) if c]
    if not idx:
        return tuple(False for _ in candidates)
    chosen = draw(st.lists(st.sampled_from(idx), min_size=1, max_size=len(idx), unique=True))
    return tuple(i in chosen for i in range(len(candidates)))


def _float(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


# ---------------------------------------------------------------------------
# Samplers: elementwise
# ---------------------------------------------------------------------------
def unary(cls: type, grad_dom: Dom = REAL, fwd_dom: Dom = WIDE) -> Sampler:
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        x = _arr(draw, _shape(draw, max_size), dtype, grad_dom if grad else fwd_dom)
        return Sample(cls(), (x,), (_float(dtype) and cls.differentiable,))

    return sampler


def binary(cls: type, doms: tuple[Dom, Dom] = (REAL, REAL), fwd_doms: tuple[Dom, Dom] = (WIDE, WIDE),
           scalar_y: tuple[Any, ...] | None = None, scalars: bool = True) -> Sampler:
    """Two broadcastable operands; sometimes one of them is a Python scalar constant.

    ``scalar_y`` lists special Python scalars for the second operand (e.g.
    integer exponents of ``pow``).
    """

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        dx, dy = doms if grad else fwd_doms
        sx, sy = _bshapes(draw, 2, max_size)
        kind = draw(st.sampled_from(["arrays", "scalar_x", "scalar_y"] if scalars else ["arrays"]))
        x = _arr(draw, sx, dtype, dx) if kind != "scalar_x" else _scalar(draw, dtype, dx)
        if kind == "scalar_y":
            if scalar_y and draw(st.booleans()):
                y = draw(st.sampled_from(scalar_y))
            else:
                y = _scalar(draw, dtype, dy)
        else:
            y = _arr(draw, sy, dtype, dy)
        fl = _float(dtype) and cls.differentiable
        return Sample(cls(), (x, y), _diff(draw, [fl and isinstance(x, np.ndarray),
                                                 fl and isinstance(y, np.ndarray)]))

    return sampler


def beside_number(cls: type, dom: Dom = REAL) -> Sampler:
    """An array and a Python number (``MulInFloat32``, ``DivInFloat32``: what ``x * 1.3`` of a float16
    ``x`` records; of other dtypes they are ``Mul`` and ``Div``)."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        (sx,) = _bshapes(draw, 1, max_size)
        x, y = _arr(draw, sx, dtype), _scalar(draw, dtype, dom)
        return Sample(cls(), (x, y), (_float(dtype), False))

    return sampler


def ldexp_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """A float array times two to an integer exponent: an int64 array (broadcast with it) or a Python
    int; forward values past either end of the exponent range, where one rounding matters."""
    sx, sn = _bshapes(draw, 2, max_size)
    x = _arr(draw, sx, dtype, REAL if grad else WIDE)
    span = 8 if grad else 1200
    if draw(st.booleans()):
        n: Any = draw(st.integers(-span, span))
    else:
        n = draw(hnp.arrays(np.int64, sn, elements=st.integers(-span, span)))
    return Sample(R["Ldexp"](), (x, n), (_float(dtype), False))


def clip_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """x with lo/hi each None, a Python scalar or an array; x never on a bound, lo != hi."""
    sx, slo, shi = _bshapes(draw, 3, max_size)
    dx, dlo, dhi = (GRID_X, GRID_Y, GRID_Z) if grad else (TIES, TIES, TIES)
    x = _arr(draw, sx, dtype, dx)

    def bound(shape: tuple[int, ...], dom: Dom) -> Any:
        kind = draw(st.sampled_from(["none", "scalar", "array"]))
        if kind == "none":
            return None
        if kind == "scalar":
            return _scalar(draw, dtype, dom)
        return _arr(draw, shape, dtype, dom)

    lo, hi = bound(slo, dlo), bound(shi, dhi)
    fl = _float(dtype)
    return Sample(registry["Clip"](), (x, lo, hi),
                  _diff(draw, [fl, fl and isinstance(lo, np.ndarray), fl and isinstance(hi, np.ndarray)]))


def where_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    sc, sx, sy = _bshapes(draw, 3, max_size)
    cond = _arr(draw, sc, np.dtype(bool))
    x = _arr(draw, sx, dtype) if draw(st.integers(0, 3)) else _scalar(draw, dtype)
    y = _arr(draw, sy, dtype) if draw(st.integers(0, 3)) or not isinstance(x, np.ndarray) \
        else _scalar(draw, dtype)
    fl = _float(dtype)
    return Sample(registry["Where"](), (cond, x, y),
                  (False,) + _diff(draw, [fl and isinstance(x, np.ndarray), fl and isinstance(y, np.ndarray)]))


def lerp_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``lerp`` of two broadcastable arrays by a number weight, on either side of 0.5 and past the ends
    (each side its own formula)."""
    ss, se = _bshapes(draw, 2, max_size)
    start, end = _arr(draw, ss, dtype), _arr(draw, se, dtype)
    weight = draw(st.sampled_from([0.0, 0.3, -0.2, 0.9, 1.0, -0.7, 1.6]))
    fl = _float(dtype)
    return Sample(R["Lerp"](weight=weight), (start, end), _diff(draw, [fl, fl]))


def lerp_by_tensor_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``lerp`` by a weight array (broadcast with the ends), its values on both sides of |w| = 0.5."""
    ss, se, sw = _bshapes(draw, 3, max_size)
    start, end = _arr(draw, ss, dtype), _arr(draw, se, dtype)
    weight = _arr(draw, sw, dtype, Dom(-1.5, 1.5, specials=(0.0, 1.0, 0.25, 0.75)))
    fl = _float(dtype)
    return Sample(R["LerpByTensor"](), (start, end, weight), _diff(draw, [fl, fl, fl]))


def addc_sampler(name: str) -> Sampler:
    """``addcmul``/``addcdiv`` of three broadcastable arrays by a number ``value`` (1 is PyTorch's
    ``maybe_multiply`` skip in the tangent); ``addcdiv``'s divisor away from 0."""
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        sx, s1, s2 = _bshapes(draw, 3, max_size)
        divisor = Dom(0.5, 4.0, gap=0.5) if name == "Addcdiv" else REAL
        x, t1, t2 = _arr(draw, sx, dtype), _arr(draw, s1, dtype), _arr(draw, s2, dtype, divisor)
        value = draw(st.sampled_from([1, 0.3, -2.7, 2]))
        fl = _float(dtype)
        return Sample(R[name](value=value), (x, t1, t2), _diff(draw, [fl, fl, fl]))
    return sampler


def logical_binary(cls: type) -> Sampler:
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        sx, sy = _bshapes(draw, 2, max_size)
        dom = Dom(-1.0, 1.0, grid=1.0)  # -1, 0, 1: zeros (false) appear often
        return Sample(cls(), (_arr(draw, sx, dtype, dom), _arr(draw, sy, dtype, dom)), (False, False))

    return sampler


def special_values_sampler(cls: type) -> Sampler:
    """Floats including nan and +-inf (isnan / isfinite)."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size)
        if dtype.kind == "f":
            dom = Dom(-5.0, 5.0, specials=(math.nan, math.inf, -math.inf, 0.0))
            x = _arr(draw, shape, dtype, dom)
        else:
            x = _arr(draw, shape, dtype)
        return Sample(cls(), (x,), (False,))

    return sampler


# ---------------------------------------------------------------------------
# Samplers: reductions and scans
# ---------------------------------------------------------------------------
def reduction(cls: type, grad_dom: Dom = REAL, fwd_dom: Dom = WIDE, nonempty: bool = False,
              ddof: bool = False) -> Sampler:
    """Axes drawn as None / int / negative int / tuple / () and normalized like functional.py."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size)
        axis = draw(mst.valid_axes(len(shape)))
        axes = mf.normalize_axis(axis, len(shape))
        if nonempty and (any(shape[a] == 0 for a in axes) or (not axes and _size(shape) == 0)):
            # max/min/logsumexp reject reductions over nothing (functional._check_nonempty)
            shape = tuple(n or 1 for n in shape)
        extra: dict[str, Any] = {}
        if ddof:
            count = _size(tuple(shape[a] for a in axes))
            if grad:
                extra["ddof"] = draw(st.integers(0, max(0, min(1, count - 1))))
            else:
                extra["ddof"] = draw(st.integers(0, 3))  # N - ddof <= 0 included: inf / nan
        x = _arr(draw, shape, dtype, grad_dom if grad else fwd_dom)
        op = cls(axes=axes, keepdims=draw(st.booleans()), in_shape=shape, **extra)
        return Sample(op, (x,), (_float(dtype),))

    return sampler


def cumsum_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size)
    axis = draw(mst.valid_axes(len(shape), single=True))
    ax = None if axis is None else mf.normalize_axis(axis, len(shape))[0]
    x = _arr(draw, shape, dtype, REAL if grad else WIDE)
    return Sample(registry["CumSum"](axis=ax, in_shape=shape), (x,), (_float(dtype),))


def arg_sampler(cls: type) -> Sampler:
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size)
        axis = draw(mst.valid_axes(len(shape), single=True))
        ax = None if axis is None else mf.normalize_axis(axis, len(shape))[0]
        if (ax is None and _size(shape) == 0) or (ax is not None and shape[ax] == 0):
            shape = tuple(n or 1 for n in shape)  # argmax of nothing is an error
        x = _arr(draw, shape, dtype, TIES)  # ties: the first index must win, as in NumPy
        return Sample(cls(axis=ax, keepdims=draw(st.booleans())), (x,), (False,))

    return sampler


# ---------------------------------------------------------------------------
# Samplers: shape and layout
# ---------------------------------------------------------------------------
def reshape_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """A target of the same size: the dims shuffled, some merged, some 1s inserted."""
    shape = _shape(draw, max_size)
    dims = list(draw(st.permutations(list(shape)))) if shape else []
    target: list[int] = []
    for d in dims:
        if target and draw(st.booleans()):
            target[-1] *= d
        else:
            target.append(d)
    for _ in range(draw(st.integers(0, 2))):
        target.insert(draw(st.integers(0, len(target))), 1)
    x = _arr(draw, shape, dtype)
    return Sample(registry["Reshape"](shape=tuple(target), in_shape=shape), (x,), (_float(dtype),))


def diagonal_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size, min_dims=2)
    axis1, axis2 = draw(st.permutations(range(len(shape))))[:2]
    offset = draw(st.integers(-shape[axis1], shape[axis2]))
    op = registry["Diagonal"](offset=offset, axis1=axis1, axis2=axis2, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))


def unfold_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size, min_dims=1)
    dim = draw(st.integers(0, len(shape) - 1))
    size = draw(st.integers(0, shape[dim]))
    step = draw(st.integers(1, shape[dim] + 1))
    op = registry["Unfold"](dim=dim, size=size, step=step, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))


def transpose_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size)
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return Sample(registry["Transpose"](axes=perm), (_arr(draw, shape, dtype),), (_float(dtype),))


def _stretch(draw: Any, shape: tuple[int, ...], max_size: int) -> tuple[int, ...]:
    """A shape that ``shape`` broadcasts to: size-1 axes stretched (to 0 too), axes prepended."""
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    body = tuple(draw(st.integers(0, 3)) if n == 1 else n for n in shape)
    out = lead + body
    assume(_size(out) <= max_size)
    return out


def broadcast_to_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max(1, max_size // 3), max_dims=3, max_side=3)
    target = _stretch(draw, shape, max_size)
    op = registry["BroadcastTo"](shape=target, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))


def sum_to_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    target = _shape(draw, max(1, max_size // 3), max_dims=3, max_side=3)
    in_shape = _stretch(draw, target, max_size)
    if in_shape == target:  # functional.sum_to returns x itself then; the op is for real sums
        in_shape = (2,) + target
        assume(_size(in_shape) <= max_size)
    op = registry["SumTo"](shape=target, in_shape=in_shape)
    return Sample(op, (_arr(draw, in_shape, dtype),), (_float(dtype),))


def concatenate_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    k = draw(st.integers(1, 3))
    base = list(_shape(draw, max(1, max_size // 3), min_dims=1, max_dims=3, max_side=3))
    axis = draw(st.integers(-len(base), len(base) - 1))
    ax = mf.normalize_axis(axis, len(base))[0]
    sizes = tuple(draw(st.integers(0, 3)) for _ in range(k))
    xs = tuple(_arr(draw, tuple(base[:ax] + [n] + base[ax + 1:]), dtype) for n in sizes)
    op = registry["Concatenate"](axis=ax, sizes=sizes)
    return Sample(op, xs, _diff(draw, [_float(dtype)] * k))


def stack_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    k = draw(st.integers(1, 3))
    shape = _shape(draw, max(1, max_size // k), max_dims=3)
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    ax = mf.normalize_axis(axis, len(shape) + 1)[0]
    xs = tuple(_arr(draw, shape, dtype) for _ in range(k))
    return Sample(registry["Stack"](axis=ax), xs, _diff(draw, [_float(dtype)] * k))


def flip_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size)
    axes = mf.normalize_axis(draw(mst.valid_axes(len(shape))), len(shape))
    return Sample(registry["Flip"](axes=axes), (_arr(draw, shape, dtype),), (_float(dtype),))


def pad_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max(1, max_size // 2), max_dims=3, max_side=3)
    widths = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in shape)
    out = tuple(n + a + b for n, (a, b) in zip(shape, widths))
    assume(_size(out) <= 4 * max_size)
    value = _scalar(draw, dtype)
    op = registry["Pad"](pad_width=widths, value=value, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))


def astype_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Gradient checks cast float64 to float64 (finite differences need it); float32
    inputs cast to float32 or float64 (the gradient must come back float32); forward
    checks cast to any supported dtype."""
    shape = _shape(draw, max_size)
    if not grad:
        target = draw(st.sampled_from(["float16", "float32", "float64", "int64", "int32", "bool"]))
    elif dtype == np.float64:
        target = "float64"
    else:
        target = draw(st.sampled_from([dtype.name, "float64"]))
    return Sample(registry["AsType"](dtype=target), (_arr(draw, shape, dtype),), (_float(dtype),))


def same_shape_pair(name: str) -> Sampler:
    """Two arrays of one shape (``KeepConnected``'s value and the tensor it stays connected to)."""
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size)
        return Sample(registry[name](), (_arr(draw, shape, dtype), _arr(draw, shape, dtype)),
                      (_float(dtype), _float(dtype)))

    return sampler


def plain_unary(name: str, **attrs: Any) -> Sampler:
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        return Sample(registry[name](**attrs), (_arr(draw, _shape(draw, max_size), dtype),),
                      (_float(dtype),))

    return sampler


# ---------------------------------------------------------------------------
# Samplers: indexing
# ---------------------------------------------------------------------------
def _index(draw: Any, shape: tuple[int, ...], arrays_only: bool = False) -> tuple:
    """An index of one of four kinds (of the three with an array: ``arrays_only``), normalized
    the way ``functional.getitem`` does."""
    kinds = [] if arrays_only else ["basic"]
    if shape:
        kinds += ["int_arrays", "mask"]
    if len(shape) >= 2:
        kinds.append("mixed")
    kind = draw(st.sampled_from(kinds))
    if kind == "basic":
        index = draw(mst.basic_indices(shape))
    elif kind == "int_arrays":
        index = draw(mst.integer_array_indices(shape, max_side=3))
    elif kind == "mask":
        index = (draw(mst.boolean_masks(shape)),)
    else:
        # an integer array (duplicates likely) next to a slice: advanced + basic
        arrs = draw(mst.integer_array_indices(shape[1:2], max_index_dims=1, max_side=3))
        sl = draw(st.slices(shape[0]))
        index = (sl, arrs[0]) if draw(st.booleans()) else (slice(None), arrs[0], Ellipsis)
    return normalize_index(index, mg.from_numpy(np.empty(shape)))


def _getitem_sampler(arrays_only: bool) -> Callable:
    """``x[index]`` of any kind (GetItem, a view: or GetItemCopy where the index holds an
    array), or only of the array kinds (GetItemCopy's own spec)."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max(1, max_size // 2), max_dims=3)
        assume(shape or not arrays_only)
        idx = _index(draw, shape, arrays_only)
        out_shape = np.empty(shape)[idx].shape
        assume(_size(out_shape) <= 2 * max_size)
        op = registry["GetItemCopy" if advanced(idx) else "GetItem"](index=idx, in_shape=shape)
        return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))

    return sampler


getitem_sampler = _getitem_sampler(arrays_only=False)


def frequency_scaled_getitem_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """An embedding lookup with ``scale_grad_by_freq`` (``F.embedding``), its ids distinct: each
    occurs once, so its scale is 1 and backward is the lookup's adjoint, which the gradient
    checks need.  Repeated ids -- where backward divides by the count and is, on purpose, not
    forward's adjoint -- are checked against PyTorch's values in tests/test_port_gaps.py."""
    rows, width = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    ids = np.array(draw(st.permutations(range(rows)))[:draw(st.integers(0, rows))], dtype=np.int64)
    scale = np.ones(ids.shape + (1,), dtype=dtype)
    op = registry["FrequencyScaledGetItem"](index=(ids,), in_shape=(rows, width), scale=scale)
    return Sample(op, (_arr(draw, (rows, width), dtype),), (_float(dtype),))


def index_add_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max(1, max_size // 2), max_dims=3)
    idx = _index(draw, shape)
    val_shape = np.empty(shape)[idx].shape
    assume(_size(val_shape) <= 2 * max_size)
    op = registry["IndexAdd"](shape=shape, index=idx)
    return Sample(op, (_arr(draw, val_shape, dtype),), (_float(dtype),))


def index_put_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``old[index] = values`` out of place (``x[i] = v`` through index arrays or a mask) with distinct
    places: a repeated index gives each write the gradient of its place (PyTorch's ``index_put``), on
    purpose not forward's adjoint -- checked against PyTorch's values in tests/test_setitem_as_pytorch_writes.py."""
    shape = _shape(draw, max(1, max_size // 2), max_dims=3)
    assume(len(shape) >= 1 and shape[0] >= 1)
    if draw(st.booleans()):
        index = (draw(mst.boolean_masks(shape)),)
    else:
        rows = np.array(draw(st.permutations(range(shape[0])))[:draw(st.integers(1, shape[0]))], dtype=np.int64)
        index = (rows,)
    index = normalize_index(index, mg.from_numpy(np.empty(shape)))
    region = np.empty(shape)[index].shape
    source = np.full(shape, -1, dtype=np.int64)
    source[index] = np.arange(_size(region), dtype=np.int64).reshape(region)
    written = source >= 0
    op = registry["IndexPut"](index=index, written=written,
                              source=np.where(written, source, 0) if _size(region) else None)
    return Sample(op, (_arr(draw, shape, dtype), _arr(draw, region, dtype)), (_float(dtype), _float(dtype)))


# ---------------------------------------------------------------------------
# Samplers: linear algebra
# ---------------------------------------------------------------------------
def matmul_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    sa, sb = draw(mst.matmul_shapes(max_batch_dims=2, max_side=3))
    assume(max(_size(sa), _size(sb), _size(np.matmul(np.zeros(sa), np.zeros(sb)).shape)) <= max_size)
    fl = _float(dtype)
    return Sample(registry["MatMul"](), (_arr(draw, sa, dtype), _arr(draw, sb, dtype)),
                  _diff(draw, [fl, fl]))


def linear_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``x @ w.T + b`` as ``nn.functional.linear`` builds it: x (..., in) with 1-D and
    batched leading axes, w (out, in), b (out,) or None."""
    n_in, n_out = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    lead = _shape(draw, max(1, max_size // 4), max_dims=2, max_side=3)
    x_shape = lead + (n_in,)
    x, w = _arr(draw, x_shape, dtype), _arr(draw, (n_out, n_in), dtype)
    b = _arr(draw, (n_out,), dtype) if draw(st.booleans()) else None
    fl = _float(dtype)
    return Sample(registry["Linear"](), (x, w, b), _diff(draw, [fl, fl, fl and b is not None]))


def recurrent_step_sampler(name: str, gates: int) -> Sampler:
    """A fused recurrent step (``LSTMStep``: 4 gates, ``GRUCell``: 3): projections xg, hg
    (..., gates * H) and a state (..., H) with the same leading axes."""
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        h = draw(st.integers(0, 3))
        lead = _shape(draw, max(1, max_size // 8), max_dims=2, max_side=3)
        xg, hg, state = (_arr(draw, lead + (gates * h,), dtype), _arr(draw, lead + (gates * h,), dtype),
                         _arr(draw, lead + (h,), dtype))
        fl = _float(dtype)
        return Sample(registry[name](), (xg, hg, state), _diff(draw, [fl, fl, fl]))
    return sampler


def lstm_cell_step_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """An ``LSTMCell`` step as one op: x (N, I), h and c (N, H), w_ih (4H, I), w_hh (4H, H) and the
    biases (4H,), both or neither (a cell has both or none)."""
    n, i, h = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 2))
    arrays = [_arr(draw, shape, dtype) for shape in ((n, i), (n, h), (n, h), (4 * h, i), (4 * h, h))]
    bias = draw(st.booleans())
    biases = [_arr(draw, (4 * h,), dtype) if bias else None for _ in range(2)]
    fl = _float(dtype)
    return Sample(registry["LSTMCellStep"](), (*arrays, *biases), _diff(draw, [fl] * 5 + [fl and bias] * 2))


def lstm_step_output_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """An LSTM step's record (6, ..., H): any values, since the output op reads two of its blocks."""
    h = draw(st.integers(0, 3))
    lead = _shape(draw, max(1, max_size // 8), max_dims=2, max_side=3)
    record = _arr(draw, (6,) + lead + (h,), dtype)
    return Sample(registry["LSTMStepOutput"](), (record,), _diff(draw, [_float(dtype)]))


def linear_log_sum_exp_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``logsumexp(x @ w.T + b)`` per row as ``F.linear_cross_entropy``'s chunked path builds it:
    x (N, d), w (C, d) with C >= 1, b (C,) or None, ``chunk_rows`` from 1 (a row a time) to past N."""
    n, d, c = draw(st.integers(0, 4)), draw(st.integers(0, 3)), draw(st.integers(1, 4))
    assume(n * c <= max_size)
    x, w = _arr(draw, (n, d), dtype), _arr(draw, (c, d), dtype)
    b = _arr(draw, (c,), dtype) if draw(st.booleans()) else None
    op = registry["LinearLogSumExp"](chunk_rows=draw(st.integers(1, 5)))
    fl = _float(dtype)
    return Sample(op, (x, w, b), _diff(draw, [fl, fl, fl and b is not None]))


def softmax_cross_entropy_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Logits (N, C) with the attributes ``nn.functional.cross_entropy`` builds: ``rows``
    (arange N), ``target`` (class ids; 0 where ignored), ``valid`` (1/0 in x's dtype, or None)."""
    n, c = draw(st.integers(0, 4)), draw(st.integers(1, 4))
    assume(n * c <= max_size)
    target = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, c - 1)))
    valid = draw(hnp.arrays(np.bool_, (n,), elements=st.booleans()))
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    if grad and n and reduction == "mean" and not valid.any():
        valid[0] = True  # mean over no valid target is 0/0
    dom = REAL if grad else Dom(-30.0, 30.0, specials=(1e4, -1e4, 0.0))
    # valid=None is what cross_entropy passes when every target counts
    mask = None if valid.all() and draw(st.booleans()) else valid.astype(dtype)
    op = registry["SoftmaxCrossEntropy"](rows=np.arange(n), target=np.where(valid, target, 0),
                                         valid=mask, reduction=reduction)
    return Sample(op, (_arr(draw, (n, c), dtype, dom),), (_float(dtype),))


def ctc_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Log-probabilities (T, N, C) with the label states ``F.ctc_loss`` builds for random targets
    (repeated labels too).  For gradients every target fits its input (an impossible one has
    ``nll = inf``); for the forward, any lengths and ``zero_infinity`` either way."""
    t, n, c = draw(st.integers(0 if not grad else 1, 4)), draw(st.integers(0, 3)), draw(st.integers(2, 4))
    assume(t * n * c <= max_size)
    blank = draw(st.integers(0, c - 1))
    labels = [k for k in range(c) if k != blank]
    rows, tl, il = [], [], []
    for _ in range(n):
        row = draw(st.lists(st.sampled_from(labels), max_size=3))
        needed = len(row) + sum(a == b for a, b in zip(row, row[1:]))
        length = draw(st.integers(needed, t) if grad and needed <= t else st.integers(0, t))
        if grad and needed > t:
            row, needed = [], 0
        rows.append(row + [blank] * (3 - len(row)))
        tl.append(len(row) if not grad or needed <= length else 0)
        il.append(length)
    states = ctc_states(np.array(rows, dtype=np.int64).reshape(n, 3), np.array(tl, dtype=np.int64), blank)
    op = registry["CTCNegLogLikelihood"](**states, input_lengths=np.array(il, dtype=np.int64),
                                         zero_infinity=draw(st.booleans()))
    return Sample(op, (_arr(draw, (t, n, c), dtype, REAL if grad else WIDE),), (_float(dtype),))


#: Subscripts as users write them; each is made explicit by functional's own
#: normalizer (implicit outputs resolved, ``...`` expanded) before the op is built.
EINSUM_PATTERNS = (
    "ij,jk->ik", "ij,jk", "ij->ji", "ii->i", "ii", "ii->", "iij->j", "ii,i->i", "ij->", "ij->j",
    "i,i->", "i,j->ij", "bij,bjk->bik", "ij,ij->ij", "ij,jk,kl->il", "ijk->kji", ",ij->ij",
    "...ij,...jk->...ik", "...i,...i->...", "i...->...",
)


def einsum_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    pattern = draw(st.sampled_from(EINSUM_PATTERNS))
    ins = pattern.split("->")[0].split(",")
    letters = sorted(set(pattern.replace(".", "").replace(",", "").replace("-", "").replace(">", "")))
    sizes = {c: draw(st.integers(0, 3)) for c in letters}
    batch = tuple(draw(st.lists(st.integers(0, 2), max_size=2)))
    shapes = []
    for spec in ins:
        named = tuple(sizes[c] for c in spec.replace("...", ""))
        if "..." in spec:
            pre, _, post = spec.partition("...")
            # the batch may be dropped from one operand: ``...`` then broadcasts
            b = batch if draw(st.booleans()) or spec == ins[0] else ()
            shapes.append(named[:len(pre)] + b + named[len(pre):])
        else:
            shapes.append(named)
    assume(all(_size(s) <= max_size for s in shapes))
    # the op mg.einsum builds (implicit output resolved, ``...`` expanded), read off its node
    explicit = mg.einsum(pattern, *[mg.zeros(sh, requires_grad=True) for sh in shapes]).grad_fn.op.subscripts
    xs = tuple(_arr(draw, s, dtype) for s in shapes)
    assume(_size(np.einsum(explicit, *[np.zeros(s) for s in shapes]).shape) <= max_size)
    return Sample(registry["Einsum"](subscripts=explicit), xs, _diff(draw, [_float(dtype)] * len(xs)))


# ---------------------------------------------------------------------------
# Samplers: neural-net ops (activations, normalization, dropout, conv, pooling)
# ---------------------------------------------------------------------------
def attrs_unary(name: str, attrs: Callable[[Any], dict], grad_dom: Dom = REAL, fwd_dom: Dom = WIDE,
                min_dims: int = 0) -> Sampler:
    """A unary op whose static attributes are drawn by ``attrs(draw)``."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        x = _arr(draw, _shape(draw, max_size, min_dims=min_dims), dtype, grad_dom if grad else fwd_dom)
        return Sample(registry[name](**attrs(draw)), (x,), (_float(dtype),))

    return sampler


def difference_loss_sampler(name: str, attrs: Callable[[Any], dict]) -> Sampler:
    """A regression loss of ``input - target`` (one shape), reduced by a drawn ``reduction``.
    For gradients the input lies on a grid offset from the target's by half a step, so the
    difference is never 0 or ``±beta`` (the kinks); forward values meet them and zeros."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size)
        on_grid = Dom(-4.0, 4.0, grid=0.25, offset=0.125) if grad else Dom(-1e3, 1e3, specials=(0.0, -0.0, 0.5, -1.0))
        x = _arr(draw, shape, dtype, on_grid)
        y = _arr(draw, shape, dtype, Dom(-4.0, 4.0, grid=0.25) if grad else on_grid)
        op = registry[name](reduction=draw(st.sampled_from(["mean", "sum", "none"])), **attrs(draw))
        return Sample(op, (x, y), _diff(draw, [_float(dtype), _float(dtype)]))

    return sampler


def softmax_sampler(name: str) -> Sampler:
    """``axis`` normalized as ``nn.functional.softmax`` does (a sorted tuple; default -1)."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size, min_dims=1)
        axis = draw(st.one_of(st.just(-1), mst.valid_axes(len(shape), single=True, allow_none=False)))
        axes = mf.normalize_axis(axis, len(shape))
        if any(shape[a] == 0 for a in axes):
            # softmax over an empty axis raises NumPy's "zero-size array to reduction
            # operation maximum" (known limitation, see the report); other axes may be empty
            shape = tuple(n or 1 for n in shape)
        dom = REAL if grad else Dom(-30.0, 30.0, specials=(1e4, -1e4, 0.0))
        op = registry[name](axis=axes)
        return Sample(op, (_arr(draw, shape, dtype, dom),), (_float(dtype),))

    return sampler


def normalize_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """layer_norm's trailing axes, batch_norm's all-but-channel axes, or any axes."""
    shape = _shape(draw, max_size, min_dims=1)
    nd = len(shape)
    kind = draw(st.sampled_from(["layer", "batch", "any"]))
    if kind == "layer":
        k = draw(st.integers(1, nd))
        axes = tuple(range(nd - k, nd))
    elif kind == "batch" and nd >= 2:
        axes = (0,) + tuple(range(2, nd))
    else:
        axes = mf.normalize_axis(draw(mst.valid_axes(nd)), nd)
    if any(shape[a] == 0 for a in axes) or (not axes and _size(shape) == 0):
        shape = tuple(n or 1 for n in shape)  # statistics of an empty slice: NumPy warns
    eps = draw(st.sampled_from([1e-5, 1e-3, 0.5]))
    # distinct values: a (nearly) constant slice has a huge gradient 1/sqrt(eps)
    x = _arr(draw, shape, dtype, DISTINCT if grad else WIDE)
    return Sample(registry["Normalize"](axes=axes, eps=eps), (x,), (_float(dtype),))


def affine_normalize_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Normalize's samples with a weight and a bias broadcastable to x: layer norm's (the
    normalized axes), batch norm's (one per channel, as (1, C, 1, ...)), or any shape that
    broadcasts without growing x (some axes kept, the rest 1, leading ones dropped)."""
    norm = normalize_sampler(draw, dtype, grad, max_size)
    (x,), axes = norm.inputs, norm.op.axes
    kind = draw(st.sampled_from(["normalized", "channel", "any"]))
    if kind == "normalized":
        shape = x.shape[min(axes):] if axes else ()
    elif kind == "channel" and x.ndim >= 2:
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    else:
        kept = draw(st.lists(st.booleans(), min_size=x.ndim, max_size=x.ndim))
        shape = tuple(n if k else 1 for n, k in zip(x.shape, kept))[draw(st.integers(0, x.ndim)):]
    w, b = (_arr(draw, shape, dtype, REAL) for _ in range(2))
    op = registry["AffineNormalize"](axes=norm.op.axes, eps=norm.op.eps)
    return Sample(op, (x, w, b), (_float(dtype),) * 3)


def dropout_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    x = _arr(draw, _shape(draw, max_size), dtype)
    op = registry["Dropout"](p=draw(st.sampled_from([0.1, 0.5, 0.9])),
                             key=draw(st.integers(0, 2**64 - 1)))
    return Sample(op, (x,), (_float(dtype),))


def add_gumbel_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    x = _arr(draw, _shape(draw, max_size), dtype)
    return Sample(registry["AddGumbel"](key=draw(st.integers(0, 2**64 - 1))), (x,), (_float(dtype),))


def _conv_geometry(draw: Any, max_size: int) -> dict[str, Any]:
    """Shapes and attributes that ``nn.functional.conv2d`` accepts, kept small."""
    groups = draw(st.sampled_from([1, 1, 2]))
    c = groups * draw(st.integers(1, 2))
    o = groups * draw(st.integers(1, 2))
    n = draw(st.sampled_from([1, 1, 2, 0]))
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    hw = tuple(max(draw(st.integers(1, 4)), d * (k - 1) + 1 - 2 * p)
               for k, p, d in zip(kernel, padding, dilation))
    x_shape = (n, c) + hw
    w_shape = (o, c // groups) + kernel
    out_hw = tuple((h + 2 * p - d * (k - 1) - 1) // s + 1
                   for h, k, s, p, d in zip(hw, kernel, stride, padding, dilation))
    g_shape = (n, o) + out_hw
    assume(max(_size(x_shape), _size(w_shape), _size(g_shape)) <= max(max_size, 16))
    return {"x": x_shape, "w": w_shape, "g": g_shape,
            "attrs": {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}}


def conv2d_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    geo = _conv_geometry(draw, max_size)
    fl = _float(dtype)
    inputs = (_arr(draw, geo["x"], dtype), _arr(draw, geo["w"], dtype))
    if draw(st.booleans()):  # with the bias input: added in place to the fresh result
        inputs += (_arr(draw, (geo["w"][0],), dtype),)
    return Sample(registry["Conv2d"](**geo["attrs"]), inputs, _diff(draw, [fl] * len(inputs)))


def conv2d_input_grad_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    geo = _conv_geometry(draw, max_size)
    fl = _float(dtype)
    op = registry["Conv2dInputGrad"](x_shape=geo["x"], **geo["attrs"])
    return Sample(op, (_arr(draw, geo["g"], dtype), _arr(draw, geo["w"], dtype)), _diff(draw, [fl, fl]))


def conv2d_weight_grad_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    geo = _conv_geometry(draw, max_size)
    fl = _float(dtype)
    op = registry["Conv2dWeightGrad"](w_shape=geo["w"], **geo["attrs"])
    return Sample(op, (_arr(draw, geo["x"], dtype), _arr(draw, geo["g"], dtype)), _diff(draw, [fl, fl]))


def _pool_geometry(draw: Any, max_size: int) -> dict[str, Any]:
    """Shapes and attributes that ``nn.functional.max_pool2d`` accepts."""
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    hw = tuple(max(draw(st.integers(1, 4)), d * (k - 1) + 1 - 2 * p)
               for k, p, d in zip(kernel, padding, dilation))
    x_shape = (draw(st.sampled_from([1, 2, 0])), draw(st.integers(1, 2))) + hw
    out_hw = tuple((h + 2 * p - d * (k - 1) - 1) // s + 1
                   for h, k, s, p, d in zip(hw, kernel, stride, padding, dilation))
    assume(_size(x_shape) <= max(max_size, 16))
    return {"x": x_shape, "g": x_shape[:2] + out_hw,
            "attrs": {"kernel": kernel, "stride": stride, "padding": padding, "dilation": dilation}}


def max_pool2d_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``max_pool2d(x)`` is ``MaxPool2d(x, x.detach())``: the routing copy gets no gradient.
    Routing values are distinct in gradient checks (one maximum per window)."""
    geo = _pool_geometry(draw, max_size)
    x = _arr(draw, geo["x"], dtype, DISTINCT if grad else TIES)
    return Sample(registry["MaxPool2d"](**geo["attrs"]), (x, x.copy()), (_float(dtype), False))


def max_pool2d_backward_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    geo = _pool_geometry(draw, max_size)
    routing = _arr(draw, geo["x"], dtype, DISTINCT if grad else TIES)
    g = _arr(draw, geo["g"], dtype)
    return Sample(registry["MaxPool2dBackward"](**geo["attrs"]), (g, routing), (_float(dtype), False))


# ---------------------------------------------------------------------------
# Samplers: tiling and its kin, gathers along an axis, sorting
# ---------------------------------------------------------------------------
def tile_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``reps`` has the input's rank (``functional.tile`` pads the shorter one with 1s)."""
    shape = _shape(draw, max(1, max_size // 4), max_dims=3, max_side=3)
    reps = tuple(draw(st.integers(0, 3)) for _ in shape)
    assume(_size(tuple(r * n for r, n in zip(reps, shape))) <= 2 * max_size)
    return Sample(registry["Tile"](reps=reps, in_shape=shape), (_arr(draw, shape, dtype),), (_float(dtype),))


def repeat_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max(1, max_size // 3), min_dims=1, max_dims=3, max_side=3)
    ax = draw(st.integers(0, len(shape) - 1))
    op = registry["Repeat"](repeats=draw(st.integers(0, 3)), axis=ax, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))


def roll_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size, min_dims=1)
    axes = tuple(draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=3)))
    shifts = tuple(draw(st.integers(-5, 5)) for _ in axes)  # repeated axes add their shifts, as NumPy
    return Sample(registry["Roll"](shifts=shifts, axes=axes), (_arr(draw, shape, dtype),), (_float(dtype),))


# ---------------------------------------------------------------------------
# Samplers: complex numbers and Fourier transforms
# ---------------------------------------------------------------------------
def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype of ``dtype``'s precision (complex64 for float32)."""
    return np.result_type(dtype, np.complex64)


def _carr(draw: Any, shape: tuple[int, ...], dtype: np.dtype, dom: Dom = REAL) -> np.ndarray:
    """A complex array of ``dtype``'s precision: real and imaginary parts drawn from ``dom``."""
    re, im = _arr(draw, shape, np.dtype(np.float64), dom), _arr(draw, shape, np.dtype(np.float64), dom)
    return np.asarray(re + 1j * im).astype(complex_dtype(dtype))  # asarray: 0-d stays an array


def complex_unary(name: str, grad_dom: Dom = REAL) -> Sampler:
    """A complex input; in the gradient domain both parts from ``grad_dom`` (away from a kink)."""
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        dom = grad_dom if grad else Dom(-3.0, 3.0, specials=(0.0, 1.0, -1.0))
        return Sample(registry[name](), (_carr(draw, _shape(draw, max_size), dtype, dom),), (True,))

    return sampler


def _fft_axes(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    order = draw(st.permutations(range(len(shape))))
    return tuple(order[:draw(st.integers(1, len(shape)))])


def fft_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size, min_dims=1, max_dims=3, min_side=1)
    x = _arr(draw, shape, dtype) if draw(st.booleans()) else _carr(draw, shape, dtype)
    op = registry["FFT"](axes=_fft_axes(draw, shape), norm=draw(st.sampled_from(["backward", "ortho", "forward"])),
                         inverse=draw(st.booleans()))
    return Sample(op, (x,), (True,))


def rfft_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape = _shape(draw, max_size, min_dims=1, max_dims=3, min_side=1)
    axes = _fft_axes(draw, shape)
    op = registry["RFFT"](axes=axes, norm=draw(st.sampled_from(["backward", "ortho", "forward"])), n=shape[axes[-1]])
    return Sample(op, (_arr(draw, shape, dtype),), (True,))


def irfft_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """A half spectrum of ``m`` bins on the last axis transformed; the output length ``n``
    is ``2m - 2`` (even, with a Nyquist bin) or ``2m - 1`` (odd)."""
    shape = _shape(draw, max_size, min_dims=1, max_dims=3, min_side=1)
    axes = _fft_axes(draw, shape)
    m = shape[axes[-1]]
    n = 1 if m == 1 else draw(st.sampled_from([2 * m - 2, 2 * m - 1]))
    op = registry["IRFFT"](axes=axes, norm=draw(st.sampled_from(["backward", "ortho", "forward"])), n=n)
    return Sample(op, (_carr(draw, shape, dtype),), (True,))


def pairs_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """A real input whose last axis holds (real, imaginary) pairs, for ``view_as_complex``."""
    shape = _shape(draw, max(max_size // 2, 1), max_dims=3) + (2,)
    return Sample(registry["ViewAsComplex"](), (_arr(draw, shape, dtype),), (True,))


def _real_of(sample: Sample, dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64)


def _complex_of(sample: Sample, dtype: np.dtype) -> np.dtype:
    return complex_dtype(np.dtype(dtype))


def triangle_sampler(name: str) -> Sampler:
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size, min_dims=2)
        return Sample(registry[name](k=draw(st.integers(-2, 2))), (_arr(draw, shape, dtype),), (_float(dtype),))

    return sampler


def tril_fill_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """A finite fill value (a -inf one, as attention uses, would defeat central differences)."""
    shape = _shape(draw, max_size, min_dims=2)
    op = registry["TrilFill"](k=draw(st.integers(-2, 2)), value=draw(st.sampled_from([-3.0, 0.0, 2.5])))
    return Sample(op, (_arr(draw, shape, dtype),), (_float(dtype),))


def scaled_softmax_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``k = -1`` masks the first row out whole: attention's weights 0 there (its gradient 0);
    scales as attention's ``1 / sqrt(head_dim)`` and above 1."""
    shape = _shape(draw, max_size, min_dims=2)
    op = registry["ScaledSoftmax"](scale=draw(st.sampled_from([0.125, 0.37, 1.0, 2.5])),
                                   causal=draw(st.booleans()), k=draw(st.integers(-1, 2)))
    dom = REAL if grad else Dom(-30.0, 30.0, specials=(1e4, -1e4, 0.0))
    return Sample(op, (_arr(draw, shape, dtype, dom),), (_float(dtype),))


def cumprod_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Gradient checks away from 0 (the second derivative at an exact zero is a known
    limitation); forward checks and the zero tests in tests/test_math_shape.py with zeros."""
    shape = _shape(draw, max_size)
    axis = draw(mst.valid_axes(len(shape), single=True))
    ax = None if axis is None else mf.normalize_axis(axis, len(shape))[0]
    dom = Dom(-1.5, 1.5, gap=0.2) if grad else Dom(-2.0, 2.0, specials=(0.0,))
    return Sample(registry["CumProd"](axis=ax, in_shape=shape), (_arr(draw, shape, dtype, dom),),
                  (_float(dtype),))


def _along_axis(draw: Any, max_size: int) -> tuple[tuple[int, ...], int, tuple[int, ...], np.ndarray]:
    """A shape, an axis, and in-range indices of that rank (other axes equal, as
    ``functional.take_along_axis`` leaves them after broadcasting)."""
    shape = _shape(draw, max(1, max_size // 2), min_dims=1, max_dims=3)
    ax = draw(st.integers(0, len(shape) - 1))
    m = draw(st.integers(0, 3)) if shape[ax] else 0
    ishape = shape[:ax] + (m,) + shape[ax + 1:]
    idx = draw(hnp.arrays(np.int64, ishape, elements=st.integers(0, max(shape[ax] - 1, 0))))
    return shape, ax, ishape, idx


def take_along_axis_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape, ax, _, idx = _along_axis(draw, max_size)
    op = registry["TakeAlongAxis"](axis=ax, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype), idx), (_float(dtype), False))


def take_along_axis_on_graph_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """A gather with a third input of derivative 0 (a max pooling's input), here of the source's shape."""
    shape, ax, _, idx = _along_axis(draw, max_size)
    op = registry["TakeAlongAxisOnGraph"](axis=ax, in_shape=shape)
    return Sample(op, (_arr(draw, shape, dtype), idx, _arr(draw, shape, dtype)), (_float(dtype), False, _float(dtype)))


def prelu_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``prelu``'s input and weight: one slope (0-d) or one per channel (axis 1), broadcast to the input's shape."""
    shape = _shape(draw, max_size, min_dims=2, max_dims=4, min_side=1)
    wshape = draw(st.sampled_from([(), (1, shape[1]) + (1,) * (len(shape) - 2)]))
    fl = _float(dtype)
    return Sample(registry["PRelu"](), (_arr(draw, shape, dtype, GRID_X if grad else WIDE),
                                        _arr(draw, wshape, dtype, REAL if grad else WIDE)), (fl, fl))


def scatter_along_axis_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    shape, ax, ishape, idx = _along_axis(draw, max_size)
    op = registry["ScatterAlongAxis"](axis=ax, shape=shape)
    return Sample(op, (_arr(draw, ishape, dtype), idx), (_float(dtype), False))


def sort_sampler(name: str) -> Sampler:
    """Distinct values for gradient checks (a tie is a kink of the sort); ties in forward checks."""

    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size, min_dims=1)
        ax = draw(st.integers(0, len(shape) - 1))
        x = _arr(draw, shape, dtype, DISTINCT if grad else TIES)
        return Sample(registry[name](axis=ax), (x,), (_float(dtype) and registry[name].differentiable,))

    return sampler


# ---------------------------------------------------------------------------
# Samplers: matrix functions.  Gradient checks get matrices where the
# derivative exists and is well conditioned (see ops/matrix.py).
# ---------------------------------------------------------------------------
def _batch(draw: Any) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(0, 2), max_size=2)))


def _orthogonal(draw: Any, n: int, complex_: bool = False) -> np.ndarray:
    """A random orthogonal matrix (unitary for ``complex_``)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.standard_normal((n, n))
    if complex_:
        a = a + 1j * rng.standard_normal((n, n))
    q, r = np.linalg.qr(a)
    d = np.diag(r)
    return q * (d / np.abs(d))


def _complex_draw(draw: Any, dtype: np.dtype) -> bool:
    """Whether a matrix sample of a float ``dtype`` is drawn complex (half the time)."""
    return dtype.kind == "f" and draw(st.booleans())


def _with_imaginary(draw: Any, a: np.ndarray, dtype: np.dtype, scale: float = 0.5) -> np.ndarray:
    """``a`` plus an imaginary part of magnitude in ``[scale / 10, scale]``, of ``dtype``'s precision
    (never tiny: a real domain's exact zeros stay clear of 0 instead of becoming 1e-308j, whose
    reciprocal overflows where the real domain keeps away from 0 on purpose)."""
    im = _arr(draw, a.shape, np.dtype(np.float64), Dom(-scale, scale, gap=scale / 10))
    return np.asarray(a + 1j * im).astype(complex_dtype(dtype))  # asarray: 0-d stays an array


def _promoted(sample: Sample, dtype: np.dtype) -> np.dtype:
    """The output dtype: complex of ``dtype``'s precision if an input is complex."""
    cx = any(isinstance(v, np.ndarray) and v.dtype.kind == "c" for v in sample.inputs)
    return complex_dtype(np.dtype(dtype)) if cx else np.dtype(dtype)


def or_complex(sampler: Sampler, scale: float = 0.5) -> Sampler:
    """``sampler``'s draws, half of them made complex: each float array input gets an
    imaginary part of magnitude up to ``scale`` (small enough to keep a well-conditioned
    matrix well conditioned)."""

    def wrapped(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        sample = sampler(draw, dtype, grad, max_size)
        if not _complex_draw(draw, dtype):
            return sample
        inputs = tuple(_with_imaginary(draw, v, v.dtype, scale) if isinstance(v, np.ndarray) and v.dtype.kind == "f"
                       else v for v in sample.inputs)
        return Sample(sample.op, inputs, sample.diff)

    return wrapped


def or_complex_ties(sampler: Sampler) -> Sampler:
    """``sampler``'s draws, half of them made complex with imaginary parts in {-1, 0, 1}: exact
    ties and exact zeros (false) stay common, for the forward-only comparisons and logic."""

    def wrapped(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        sample = sampler(draw, dtype, grad, max_size)
        if not _complex_draw(draw, dtype):
            return sample
        grid = Dom(-1.0, 1.0, grid=1.0)

        def complex_(v: np.ndarray) -> np.ndarray:
            return np.asarray(v + 1j * _arr(draw, v.shape, np.dtype(np.float64), grid)).astype(complex_dtype(v.dtype))

        inputs = tuple(complex_(v) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v for v in sample.inputs)
        return Sample(sample.op, inputs, sample.diff)

    return wrapped


def _matrix_sample(draw: Any, max_size: int, square: bool = True) -> tuple[tuple[int, ...], int, int]:
    batch = _batch(draw)
    m = draw(st.integers(1, 3))
    n = m if square else draw(st.integers(1, 3))
    assume(_size(batch + (m, n)) <= max_size)
    return batch, m, n


def well_conditioned(draw: Any, dtype: np.dtype, max_size: int, grad: bool) -> np.ndarray:
    """Entries in [-1, 1] plus 4 on the diagonal: strictly diagonally dominant (n <= 3),
    so far from singular (with 3 a row like [2, -1, -1] is singular)."""
    batch, n, _ = _matrix_sample(draw, max_size)
    a = _arr(draw, batch + (n, n), np.dtype(np.float64), Dom(-1.0, 1.0))
    return (a + 4 * np.eye(n)).astype(dtype)


def square_sampler(name: str) -> Sampler:
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        return Sample(registry[name](), (well_conditioned(draw, dtype, max_size, grad),), (_float(dtype),))

    return sampler


def lu_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Square and non-square matrices, [-1, 1] plus 4 on the diagonal: every pivot (chosen or
    not) is far from 0 and from a tie, with and without pivoting."""
    batch, m, n = _matrix_sample(draw, max_size, square=False)
    a = _arr(draw, batch + (m, n), np.dtype(np.float64), Dom(-1.0, 1.0)) + 4 * np.eye(m, n)
    return Sample(registry["LuFactor"](pivot=draw(st.booleans())), (a.astype(dtype),), (_float(dtype),))


def ldl_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Symmetric indefinite matrices whose Bunch-Kaufman pivot choices are far from every
    threshold (so finite differences stay on one branch): 1x1 blocks are diagonal entries of
    size 3..4, 2x2 blocks two small diagonal entries joined by an off-diagonal one of size 3..4,
    the rest in [-0.3, 0.3]; a random symmetric permutation makes rows swap.  The upper
    triangle is noise (not read), so half the draws made complex (complex symmetric) are too."""
    batch = _batch(draw)
    blocks = draw(st.lists(st.sampled_from([1, 2]), min_size=0, max_size=2))
    n = sum(blocks)
    assume(_size(batch + (n, n)) <= max_size)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mats = []
    for _ in range(_size(batch)):
        s = rng.uniform(-0.3, 0.3, (n, n))
        s = (s + s.T) / 2
        starts = np.cumsum([0] + blocks[:-1]).astype(int)
        for k, size in zip(starts, blocks):
            big = rng.choice([-1.0, 1.0]) * rng.uniform(3.0, 4.0)
            s[k, k] = big
            if size == 2:
                s[k, k], s[k + 1, k + 1] = rng.uniform(-0.1, 0.1, 2)
                s[k, k + 1] = s[k + 1, k] = big
        p = rng.permutation(n)
        mats.append(np.tril(s[p][:, p]) + np.triu(rng.uniform(-1.0, 1.0, (n, n)), 1))
    a = np.asarray(mats).reshape(batch + (n, n)) if mats else np.zeros(batch + (n, n))
    return Sample(registry["LdlFactor"](), (a.astype(dtype),), (_float(dtype),))


def matrix_exp_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Entries in [-2, 2]: 1-norms up to 6, so a few squarings run; ``squarings`` is what the
    public function picks for the sample."""
    from minigrad_ckpt.ops.matrix_exp import squarings

    batch, n, _ = _matrix_sample(draw, max_size)
    a = _arr(draw, batch + (n, n), np.dtype(np.float64), Dom(-2.0, 2.0)).astype(dtype)
    s = squarings(float(np.abs(a).sum(axis=-2).max())) if a.size else 0
    return Sample(registry["MatrixExp"](squarings=s), (a,), (_float(dtype),))


def zeta_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``x`` in [1.5, 6] (no derivative), ``q`` in [0.3, 5]; forward checks also at q's poles and
    at q < 0 with an integer x (where every term is real and the sum finite)."""
    shape = _shape(draw, max_size)
    x = _arr(draw, shape, dtype, Dom(1.5, 6.0) if grad else Dom(1.5, 6.0, specials=(2.0, 3.0, 5.0)))
    q = _arr(draw, shape, dtype, Dom(0.3, 5.0) if grad else Dom(-3.0, 5.0, specials=(0.0, -1.0, 1.0, -0.5, -2.25)))
    return Sample(registry["Zeta"](), (x, q), (False, _float(dtype)))


def incomplete_gamma_sampler(name: str) -> Sampler:
    """``a`` in [0.3, 8] (no derivative), ``x`` in [0.05, 12] (both sides of ``x = a + 1``);
    forward checks also at 0 and below it."""
    def sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
        shape = _shape(draw, max_size)
        a = _arr(draw, shape, dtype, Dom(0.3, 8.0))
        x = _arr(draw, shape, dtype, Dom(0.05, 12.0) if grad else Dom(-1.0, 12.0, specials=(0.0, 1.0)))
        return Sample(registry[name](), (a, x), (False, _float(dtype)))

    return sampler


def solve_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """``b`` is a stack of columns (``linalg.solve`` makes a vector a column); batch axes broadcast."""
    a = well_conditioned(draw, dtype, max_size, grad)
    n = a.shape[-1]
    bbatch = a.shape[:-2][draw(st.integers(0, a.ndim - 2)):] if draw(st.booleans()) else a.shape[:-2]
    b = _arr(draw, bbatch + (n, draw(st.integers(0, 2))), dtype)
    fl = _float(dtype)
    return Sample(registry["Solve"](), (a, b), _diff(draw, [fl, fl]))


def _spectral(draw: Any, n: int, values: np.ndarray, complex_: bool = False) -> np.ndarray:
    """The symmetric (Hermitian for ``complex_``) matrix with eigenvalues ``values``."""
    q = _orthogonal(draw, n, complex_)
    return (q * values) @ q.conj().T


def _noise(draw: Any, shape: tuple[int, ...], complex_: bool) -> np.ndarray:
    a = _arr(draw, shape, np.dtype(np.float64))
    return a + 1j * _arr(draw, shape, np.dtype(np.float64)) if complex_ else a


def spd_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Symmetric (Hermitian) positive definite (eigenvalues in [0.5, 4]); the upper
    triangle, and for complex matrices the imaginary part of the diagonal, are
    overwritten with noise, which Cholesky must ignore."""
    batch, n, _ = _matrix_sample(draw, max_size)
    cx = _complex_draw(draw, dtype)
    mats = []
    for _ in range(_size(batch)):
        w = np.asarray(draw(st.lists(st.floats(0.5, 4.0), min_size=n, max_size=n)))
        mats.append(_spectral(draw, n, w, cx))
    a = np.asarray(mats).reshape(batch + (n, n)) if mats else np.zeros(batch + (n, n))
    noise = _noise(draw, batch + (n, n), cx)
    a = np.tril(a) + np.triu(noise, 1)
    if cx:
        a = a + 1j * np.eye(n) * _arr(draw, batch + (1, n), np.dtype(np.float64))
    return Sample(registry["Cholesky"](), (a.astype(complex_dtype(dtype) if cx else dtype),), (_float(dtype),))


def eigh_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Gradient checks: distinct eigenvalues at least 0.5 apart (the eigenvector gradient
    exists); forward checks: any symmetric lower triangle.  Upper triangle: noise."""
    batch, n, _ = _matrix_sample(draw, max_size)
    cx = _complex_draw(draw, dtype)
    if grad:
        mats = []
        for _ in range(_size(batch)):
            w = np.asarray(draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n, unique=True))) * 0.5
            mats.append(_spectral(draw, n, w, cx))
        a = np.asarray(mats).reshape(batch + (n, n)) if mats else np.zeros(batch + (n, n))
    else:
        a = _noise(draw, batch + (n, n), cx)
    a = np.tril(a) + np.triu(_noise(draw, batch + (n, n), cx), 1)
    return Sample(registry["Eigh"](), (a.astype(complex_dtype(dtype) if cx else dtype),), (_float(dtype),))


def eig_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Gradient checks: ``P diag(w) P^-1`` with distinct eigenvalues at least 0.5 apart (real
    ones, or complex for a complex matrix) and a well-conditioned ``P``; forward checks: any
    matrix."""
    batch, n, _ = _matrix_sample(draw, max_size)
    cx = _complex_draw(draw, dtype)
    if grad:
        mats = []
        for _ in range(_size(batch)):
            w = np.asarray(draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n, unique=True))) * 0.5
            # P's entries and the imaginary parts on a grid: a tiny entry (1e-302 beside 0.5) makes
            # LAPACK's balancing deflate what a finite difference perturbs, so the forward itself
            # does not move where the exact eigenvectors do
            p = _arr(draw, (n, n), np.dtype(np.float64), Dom(-1.0, 1.0, grid=0.125)) * 0.2 + 2 * np.eye(n)
            if cx:
                p = p + 0.2j * _arr(draw, (n, n), np.dtype(np.float64), Dom(-1.0, 1.0, grid=0.125))
                w = w + 1j * np.asarray(draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n))) / 8
            mats.append((p * w) @ np.linalg.inv(p))
        a = np.asarray(mats).reshape(batch + (n, n)) if mats else np.zeros(batch + (n, n))
    else:
        a = _noise(draw, batch + (n, n), cx)
    return Sample(registry["Eig"](), (a.astype(complex_dtype(dtype) if cx else dtype),), (_float(dtype),))


def svd_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """Gradient checks: distinct singular values in [0.5, 4], at least 0.5 apart."""
    batch, m, n = _matrix_sample(draw, max_size, square=False)
    k = min(m, n)
    cx = _complex_draw(draw, dtype)
    if grad:
        mats = []
        for _ in range(_size(batch)):
            s = np.asarray(draw(st.lists(st.integers(1, 8), min_size=k, max_size=k, unique=True))) * 0.5
            u, v = _orthogonal(draw, m, cx)[:, :k], _orthogonal(draw, n, cx)[:, :k]
            mats.append((u * s) @ v.conj().T)
        a = np.asarray(mats).reshape(batch + (m, n)) if mats else np.zeros(batch + (m, n))
    else:
        a = _noise(draw, batch + (m, n), cx)
    return Sample(registry["Svd"](in_shape=a.shape), (a.astype(complex_dtype(dtype) if cx else dtype),),
                  (_float(dtype),))


def full_rank(draw: Any, dtype: np.dtype, max_size: int) -> np.ndarray:
    """Entries in [-1, 1] plus 3 on the leading diagonal: full rank, well conditioned."""
    batch, m, n = _matrix_sample(draw, max_size, square=False)
    a = _arr(draw, batch + (m, n), np.dtype(np.float64), Dom(-1.0, 1.0)) + 3 * np.eye(m, n)
    return a.astype(dtype)


def qr_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    a = full_rank(draw, dtype, max_size)
    return Sample(registry["Qr"](in_shape=a.shape), (a,), (_float(dtype),))


def pinv_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    a = full_rank(draw, dtype, max_size)
    rcond = float(max(a.shape[-2:]) * np.finfo(dtype).eps)
    return Sample(registry["Pinv"](rcond=rcond), (a,), (_float(dtype),))


def vector_norm_sampler(draw: Any, dtype: np.dtype, grad: bool, max_size: int) -> Sample:
    """p-norms over drawn axes; gradient checks away from 0 (``|x|^(p-1)`` is singular there)."""
    shape = _shape(draw, max_size)
    axes = mf.normalize_axis(draw(mst.valid_axes(len(shape))), len(shape))
    p = draw(st.sampled_from([2.0, 1.0, 3.0, 1.5, 0.5, -1.0]))
    x = _arr(draw, shape, dtype, Dom(0.2, 3.0, gap=0.2) if grad else WIDE)
    op = registry["VectorNorm"](ord=p, axes=axes, keepdims=draw(st.booleans()))
    return Sample(op, (x,), (_float(dtype),))


# ---------------------------------------------------------------------------
# The database
# ---------------------------------------------------------------------------
INT_FWD = ("float64", "float32", "int64")
CMP_FWD = ("float64", "float32", "int64", "int32", "uint8", "bool")

R = registry  # short alias for the table below


def _spec(name: str, sampler: Sampler, **kw: Any) -> OpSpec:
    return OpSpec(name=name, sampler=sampler, **kw)


def _cmp(name: str) -> OpSpec:
    sampler = binary(R[name], doms=(TIES, TIES), fwd_doms=(TIES, TIES))
    return _spec(name, sampler, forward_dtypes=CMP_FWD, forward_only=True)


SPECS: list[OpSpec] = [
    # binary arithmetic (broadcasting, Python scalar operands)
    _spec("Add", binary(R["Add"]), forward_dtypes=INT_FWD),
    _spec("Sub", binary(R["Sub"]), forward_dtypes=INT_FWD),
    _spec("Mul", binary(R["Mul"]), forward_dtypes=INT_FWD),
    _spec("Div", binary(R["Div"], doms=(REAL, Dom(0.5, 4.0, gap=0.5)),
                        fwd_doms=(WIDE, Dom(-3.0, 3.0, specials=(0.0, -0.0, 1.0))))),
    _spec("MulInFloat32", beside_number(R["MulInFloat32"])),
    _spec("DivInFloat32", beside_number(R["DivInFloat32"], Dom(0.5, 4.0, gap=0.5))),
    _spec("Pow", binary(R["Pow"], doms=(Dom(0.5, 3.0), Dom(-2.0, 2.0)),
                        fwd_doms=(Dom(-3.0, 3.0, specials=(0.0, 1.0, -1.0)),
                                  Dom(-2.0, 2.0, specials=(0.0, 0.5, 1.0, 2.0, -1.0))),
                        scalar_y=(0, 1, 2, 3, -1, 0.5, -0.5, 2.5))),
    _spec("Maximum", binary(R["Maximum"], doms=(GRID_X, GRID_Y), fwd_doms=(TIES, TIES)),
          forward_dtypes=INT_FWD),
    _spec("Minimum", binary(R["Minimum"], doms=(GRID_X, GRID_Y), fwd_doms=(TIES, TIES)),
          forward_dtypes=INT_FWD),
    _spec("Clip", clip_sampler),
    _spec("Where", where_sampler, forward_dtypes=INT_FWD),
    _spec("Lerp", lerp_sampler),
    _spec("LerpByTensor", lerp_by_tensor_sampler),
    _spec("Addcmul", addc_sampler("Addcmul")),
    _spec("Addcdiv", addc_sampler("Addcdiv")),
    # unary math
    _spec("Neg", unary(R["Neg"]), forward_dtypes=INT_FWD),
    _spec("Exp", unary(R["Exp"])),
    _spec("Log", unary(R["Log"], POSITIVE, NONNEG_FWD)),
    _spec("Log1p", unary(R["Log1p"], Dom(-0.8, 5.0), Dom(-3.0, 8.0, specials=(-1.0, 0.0)))),
    _spec("Sqrt", unary(R["Sqrt"], POSITIVE, NONNEG_FWD)),
    _spec("Rsqrt", unary(R["Rsqrt"], POSITIVE, NONNEG_FWD)),
    _spec("Abs", unary(R["Abs"], Dom(0.1, 5.0, gap=0.1), WIDE), forward_dtypes=INT_FWD),
    _spec("Sin", unary(R["Sin"])),
    _spec("Cos", unary(R["Cos"])),
    _spec("Tanh", unary(R["Tanh"])),
    _spec("Sigmoid", unary(R["Sigmoid"], REAL, Dom(-40.0, 40.0, specials=(0.0, 30.0, -30.0)))),
    # trigonometric, hyperbolic, exponential, logarithmic and rounding functions
    _spec("Tan", unary(R["Tan"], Dom(-1.2, 1.2), Dom(-1.5, 1.5, specials=(0.0,)))),
    _spec("Sinh", unary(R["Sinh"])),
    _spec("Cosh", unary(R["Cosh"])),
    _spec("Arcsin", unary(R["Arcsin"], UNIT_OPEN, UNIT_FWD)),
    _spec("Arccos", unary(R["Arccos"], UNIT_OPEN, UNIT_FWD)),
    _spec("Arctan", unary(R["Arctan"])),
    _spec("Arcsinh", unary(R["Arcsinh"])),
    _spec("Arccosh", unary(R["Arccosh"], Dom(1.2, 5.0), Dom(0.0, 5.0, specials=(1.0,)))),
    _spec("Arctanh", unary(R["Arctanh"], UNIT_OPEN, UNIT_FWD)),
    _spec("Log2", unary(R["Log2"], POSITIVE, NONNEG_FWD)),
    _spec("Log10", unary(R["Log10"], POSITIVE, NONNEG_FWD)),
    _spec("Exp2", unary(R["Exp2"])),
    _spec("Expm1", unary(R["Expm1"])),
    _spec("Sinc", unary(R["Sinc"], Dom(-3.0, 3.0, specials=(0.0, 0.05, -0.099, 0.1, 1.0)), WIDE)),
    _spec("Square", unary(R["Square"])),
    _spec("Reciprocal", unary(R["Reciprocal"], Dom(0.5, 4.0, gap=0.5), Dom(-3.0, 3.0, specials=(0.0, -0.0)))),
    _spec("Cbrt", unary(R["Cbrt"], Dom(0.2, 5.0, gap=0.2), WIDE)),
    # step functions: gradient 0; gradient checks keep clear of the jumps (a grid of odd 32nds)
    _spec("Floor", unary(R["Floor"], GRID_X, TIES)),
    _spec("Ceil", unary(R["Ceil"], GRID_X, TIES)),
    _spec("Trunc", unary(R["Trunc"], GRID_X, TIES)),
    _spec("Sign", unary(R["Sign"], GRID_X, TIES), forward_dtypes=("float64", "float32", "int64", "int8")),
    _spec("RealAngle", unary(R["RealAngle"], GRID_X, Dom(-2.0, 2.0, grid=0.5, specials=(0.0, -0.0)))),
    _spec("Round", attrs_unary("Round", lambda d: {"decimals": d(st.sampled_from([0, 1, 2, -1]))},
                               GRID_X, Dom(-3.0, 3.0, grid=0.25, specials=(0.05, 0.15, 2.5)))),
    # binary math beyond arithmetic
    _spec("Arctan2", binary(R["Arctan2"], doms=(AWAY_FROM_0, AWAY_FROM_0))),
    _spec("Hypot", binary(R["Hypot"], doms=(AWAY_FROM_0, REAL))),
    _spec("LogAddExp", binary(R["LogAddExp"], fwd_doms=(WITH_NEG_INF, WITH_NEG_INF))),
    _spec("LogAddExp2", binary(R["LogAddExp2"], fwd_doms=(WITH_NEG_INF, WITH_NEG_INF))),
    # x on odd 32nds, y on odd halves: x / y is never within 1/150 of an integer (no jump nearby)
    _spec("Mod", binary(R["Mod"], doms=(GRID_X, ODD_HALVES), fwd_doms=(WIDE, DIVISOR_FWD))),
    _spec("Fmod", binary(R["Fmod"], doms=(GRID_X, ODD_HALVES), fwd_doms=(WIDE, DIVISOR_FWD))),
    _spec("FloorDivide", binary(R["FloorDivide"], doms=(GRID_X, ODD_HALVES), fwd_doms=(WIDE, DIVISOR_FWD)),
          forward_dtypes=INT_FWD),
    _spec("Ldexp", ldexp_sampler),
    # forward-only elementwise
    _cmp("Equal"), _cmp("NotEqual"), _cmp("Less"), _cmp("LessEqual"), _cmp("Greater"),
    _cmp("GreaterEqual"),
    _spec("LogicalAnd", logical_binary(R["LogicalAnd"]), forward_dtypes=CMP_FWD, forward_only=True),
    _spec("LogicalOr", logical_binary(R["LogicalOr"]), forward_dtypes=CMP_FWD, forward_only=True),
    _spec("LogicalNot", unary(R["LogicalNot"], TIES, TIES), forward_dtypes=CMP_FWD, forward_only=True),
    _spec("IsNan", special_values_sampler(R["IsNan"]), forward_dtypes=("float64", "float32", "int64"),
          forward_only=True),
    _spec("IsFinite", special_values_sampler(R["IsFinite"]),
          forward_dtypes=("float64", "float32", "int64"), forward_only=True),
    _spec("ArgMax", arg_sampler(R["ArgMax"]), forward_dtypes=CMP_FWD, forward_only=True),
    _spec("ArgMin", arg_sampler(R["ArgMin"]), forward_dtypes=CMP_FWD, forward_only=True),
    # reductions and scans
    _spec("Sum", reduction(R["Sum"]), forward_dtypes=INT_FWD),
    _spec("Mean", reduction(R["Mean"])),
    _spec("Max", reduction(R["Max"], DISTINCT, TIES, nonempty=True), forward_dtypes=INT_FWD),
    _spec("Min", reduction(R["Min"], DISTINCT, TIES, nonempty=True), forward_dtypes=INT_FWD),
    _spec("Prod", reduction(R["Prod"], Dom(-1.5, 1.5, gap=0.1, specials=(0.0,)), Dom(-2.0, 2.0, specials=(0.0,))),
          forward_dtypes=INT_FWD),
    _spec("Var", reduction(R["Var"], REAL, WIDE, ddof=True)),
    _spec("Std", reduction(R["Std"], DISTINCT, TIES, ddof=True)),
    _spec("LogSumExp", reduction(R["LogSumExp"], REAL, Dom(-30.0, 30.0), nonempty=True)),
    _spec("CumSum", cumsum_sampler, forward_dtypes=INT_FWD),
    # shape and layout
    _spec("Reshape", reshape_sampler, forward_dtypes=INT_FWD),
    _spec("Transpose", transpose_sampler, forward_dtypes=INT_FWD),
    _spec("Diagonal", diagonal_sampler, forward_dtypes=INT_FWD),
    _spec("Unfold", unfold_sampler, forward_dtypes=INT_FWD),
    _spec("BroadcastTo", broadcast_to_sampler, forward_dtypes=INT_FWD),
    _spec("SumTo", sum_to_sampler, forward_dtypes=INT_FWD),
    _spec("Concatenate", concatenate_sampler, forward_dtypes=INT_FWD),
    _spec("Stack", stack_sampler, forward_dtypes=INT_FWD),
    _spec("Flip", flip_sampler, forward_dtypes=INT_FWD),
    _spec("Pad", pad_sampler, forward_dtypes=INT_FWD),
    _spec("AsType", astype_sampler, out_dtype=lambda s, dt: np.dtype(s.op.dtype)),
    _spec("Clone", plain_unary("Clone"), forward_dtypes=INT_FWD),
    _spec("KeepConnected", same_shape_pair("KeepConnected")),
    _spec("ToDevice", plain_unary("ToDevice", device="cpu", source="cpu"), forward_dtypes=INT_FWD,
          notes="cpu -> cpu through tape.apply; real device moves are covered by the GPU tests"),
    # tiling and its kin, gathers along an axis, sorting
    _spec("Tile", tile_sampler, forward_dtypes=INT_FWD),
    _spec("Repeat", repeat_sampler, forward_dtypes=INT_FWD),
    _spec("Roll", roll_sampler, forward_dtypes=INT_FWD),
    _spec("Tril", triangle_sampler("Tril"), forward_dtypes=INT_FWD),
    _spec("TrilFill", tril_fill_sampler),
    _spec("Triu", triangle_sampler("Triu"), forward_dtypes=INT_FWD),
    _spec("CumProd", cumprod_sampler, forward_dtypes=INT_FWD),
    _spec("TakeAlongAxis", take_along_axis_sampler, forward_dtypes=INT_FWD),
    _spec("PRelu", prelu_sampler),
    _spec("TakeAlongAxisOnGraph", take_along_axis_on_graph_sampler, forward_dtypes=INT_FWD),
    _spec("ScatterAlongAxis", scatter_along_axis_sampler, forward_dtypes=INT_FWD),
    _spec("Sort", sort_sampler("Sort"), forward_dtypes=INT_FWD),
    _spec("ArgSort", sort_sampler("ArgSort"), forward_dtypes=CMP_FWD, forward_only=True),
    # indexing
    _spec("GetItem", getitem_sampler, forward_dtypes=INT_FWD),
    _spec("GetItemCopy", _getitem_sampler(arrays_only=True), forward_dtypes=INT_FWD),
    _spec("FrequencyScaledGetItem", frequency_scaled_getitem_sampler),
    _spec("IndexAdd", index_add_sampler, forward_dtypes=INT_FWD),
    _spec("IndexPut", index_put_sampler),
    # linear algebra
    _spec("MatMul", matmul_sampler, forward_dtypes=INT_FWD),
    _spec("Einsum", einsum_sampler, forward_dtypes=INT_FWD),
    _spec("Linear", linear_sampler),
    _spec("LSTMStep", recurrent_step_sampler("LSTMStep", 4)),
    _spec("LSTMStepOutput", lstm_step_output_sampler),
    _spec("LSTMCellStep", lstm_cell_step_sampler),
    _spec("GRUCell", recurrent_step_sampler("GRUCell", 3)),
    # matrix functions: no stride-0 views (repeated rows are singular)
    # (half the samples complex: Hermitian / unitary structure where the op needs it)
    _spec("Inv", or_complex(square_sampler("Inv")), broadcast_views=False, out_dtype=_promoted),
    _spec("Det", or_complex(square_sampler("Det")), broadcast_views=False, out_dtype=_promoted),
    _spec("SlogDet", or_complex(square_sampler("SlogDet")), broadcast_views=False, out_dtype=_promoted),
    _spec("Solve", or_complex(solve_sampler), broadcast_views=False, out_dtype=_promoted),
    _spec("Cholesky", spd_sampler, broadcast_views=False, out_dtype=_promoted),
    _spec("Eigh", eigh_sampler, broadcast_views=False, out_dtype=_promoted),
    _spec("Eig", eig_sampler, broadcast_views=False, out_dtype=_complex_of),
    _spec("Svd", svd_sampler, broadcast_views=False, out_dtype=_promoted),
    _spec("Qr", or_complex(qr_sampler), broadcast_views=False, out_dtype=_promoted),
    _spec("Pinv", or_complex(pinv_sampler, 0.3), broadcast_views=False, out_dtype=_promoted),
    _spec("MatrixExp", or_complex(matrix_exp_sampler, 0.3), broadcast_views=False, out_dtype=_promoted),
    _spec("LuFactor", or_complex(lu_sampler, 0.3), broadcast_views=False, out_dtype=_promoted),
    _spec("LdlFactor", or_complex(ldl_sampler, 0.3), broadcast_views=False, out_dtype=_promoted),
    _spec("VectorNorm", vector_norm_sampler),
    # complex numbers and Fourier transforms: complex samples (float32 draws complex64)
    _spec("Real", complex_unary("Real"), out_dtype=_real_of),
    _spec("Imag", complex_unary("Imag"), out_dtype=_real_of),
    _spec("Conj", complex_unary("Conj"), out_dtype=_complex_of),
    _spec("Complex", binary(R["Complex"], scalars=False), out_dtype=_complex_of),
    _spec("ViewAsReal", complex_unary("ViewAsReal"), out_dtype=_real_of),
    _spec("ViewAsComplex", pairs_sampler, out_dtype=_complex_of),
    _spec("ComplexAbs", complex_unary("ComplexAbs", AWAY_FROM_0), out_dtype=_real_of),
    _spec("Angle", complex_unary("Angle", AWAY_FROM_0), out_dtype=_real_of),
    _spec("FFT", fft_sampler, out_dtype=_complex_of),
    _spec("RFFT", rfft_sampler, out_dtype=_complex_of),
    _spec("IRFFT", irfft_sampler, out_dtype=_real_of),
    # special functions: gradient checks inside each function's domain,
    # forward checks with poles, zeros and the domain's ends
    _spec("Gammaln", unary(R["Gammaln"], Dom(0.2, 8.0), Dom(-5.0, 30.0, specials=(0.0, -1.0, 1.0, 2.0, 0.5, -2.5)))),
    _spec("Digamma", unary(R["Digamma"], Dom(0.2, 8.0),
                           Dom(-5.0, 30.0, specials=(0.0, -1.0, 1.4616321449683622, -0.5)))),
    _spec("Polygamma", attrs_unary("Polygamma", lambda d: {"n": d(st.sampled_from([1, 2, 3]))},
                                   Dom(0.3, 8.0), Dom(0.2, 30.0))),
    _spec("Gamma", unary(R["Gamma"], Dom(0.2, 5.0), Dom(-5.0, 30.0, specials=(0.0, -1.0, -2.5, 1.0)))),
    _spec("Erfc", unary(R["Erfc"], REAL, Dom(-6.0, 27.0, specials=(0.0, 1.0, 8.0, -1.0)))),
    _spec("Erfinv", unary(R["Erfinv"], Dom(-0.9, 0.9), Dom(-1.2, 1.2, specials=(1.0, -1.0, 0.0, 0.5, -0.5)))),
    _spec("Erfcinv", unary(R["Erfcinv"], Dom(0.1, 1.9), Dom(-0.2, 2.2, specials=(0.0, 2.0, 1.0, 0.5, 1.5)))),
    _spec("Logit", unary(R["Logit"], Dom(0.05, 0.95), Dom(-0.2, 1.2, specials=(0.0, 1.0, 0.5, 0.25)))),
    # eps <= 0.1 clamps outside [0.1, 0.9]: the gradient's points stay off those corners
    _spec("ClampedLogit", attrs_unary("ClampedLogit", lambda d: {"eps": d(st.sampled_from([0.0, 1e-3, 0.1]))},
                                      Dom(0.15, 0.85), Dom(-0.2, 1.2, specials=(0.0, 1.0, 0.5, 0.1, 0.9)))),
    _spec("Erfcx", unary(R["Erfcx"], Dom(-3.0, 40.0), Dom(-27.0, 60.0, specials=(0.0, 1.0, 8.0, 27.0, -26.7)))),
    # I0e = exp(-|x|) I0(x) has a corner at 0 (slopes +1 and -1, gradient 0 there, as abs's): its
    # second derivative at 0 is a jump that central differences of the gradient read as a slope of
    # 1/eps -- not a kink to them, since the gradient at 0 is the mean of the two sides -- so the
    # derivatives are checked away from 0 (the forward domain keeps 0)
    _spec("I0e", unary(R["I0e"], Dom(0.05, 40.0, gap=0.05), Dom(-50.0, 50.0, specials=(0.0, -0.0, 30.0, -30.0)))),
    _spec("Zeta", zeta_sampler),
    _spec("Gammainc", incomplete_gamma_sampler("Gammainc")),
    _spec("Gammaincc", incomplete_gamma_sampler("Gammaincc")),
    _spec("I1e", unary(R["I1e"], Dom(-40.0, 40.0), Dom(-50.0, 50.0, specials=(0.0, -0.0, 30.0, -30.0)))),
    # the unscaled ones: smooth everywhere (no |x| corner), finite up to |x| = 713
    _spec("Entr", unary(R["Entr"], POSITIVE, Dom(-2.0, 8.0, specials=(0.0, -0.0, 1.0, math.inf)))),
    _spec("I0", unary(R["I0"], Dom(-20.0, 20.0), Dom(-720.0, 720.0, specials=(0.0, -0.0, 1e-300, 30.0, 712.0)))),
    _spec("I1", unary(R["I1"], Dom(-20.0, 20.0), Dom(-720.0, 720.0, specials=(0.0, -0.0, 1e-300, -30.0, -712.0)))),
    # torch.special's functions without a derivative (ops/bessel.py, ops/orthogonal_polynomials.py): forward only
    *(_spec(name, unary(R[name], REAL, Dom(-30.0, 30.0, specials=(0.0, -0.0, 1.0, -1.0))), forward_only=True)
      for name in ("SphericalBesselJ0", "ModifiedBesselI0", "ModifiedBesselI1", "BesselJ0", "BesselJ1")),
    # (AiryAi's reference, a Maclaurin series, holds for |x| <= 2: tests/test_bessel*.py check the rest with mpmath)
    _spec("AiryAi", unary(R["AiryAi"], REAL, Dom(-2.0, 2.0, specials=(0.0, -0.0, 1.0, -1.0))), forward_only=True),
    *(_spec(name, unary(R[name], POSITIVE, Dom(0.05, 30.0, specials=(1.0, 2.0))), forward_only=True)
      for name in ("ModifiedBesselK0", "ModifiedBesselK1", "ScaledModifiedBesselK0", "ScaledModifiedBesselK1",
                   "BesselY0", "BesselY1")),
    *(_spec(name, binary(R[name], fwd_doms=(UNIT_FWD, Dom(0.0, 6.0, grid=1.0)), scalars=False), forward_only=True)
      for name in ("ChebyshevPolynomialT", "ChebyshevPolynomialU", "ChebyshevPolynomialV", "ChebyshevPolynomialW",
                   "ShiftedChebyshevPolynomialT", "ShiftedChebyshevPolynomialU", "ShiftedChebyshevPolynomialV",
                   "ShiftedChebyshevPolynomialW", "HermitePolynomialH", "HermitePolynomialHe", "LaguerrePolynomialL",
                   "LegendrePolynomialP")),
    _spec("Xlogy", binary(R["Xlogy"], doms=(REAL, POSITIVE), fwd_doms=(WIDE, NONNEG_FWD))),
    _spec("Xlog1py", binary(R["Xlog1py"], doms=(REAL, Dom(-0.8, 5.0)),
                            fwd_doms=(WIDE, Dom(-3.0, 8.0, specials=(-1.0, 0.0))))),
    _spec("Betaln", binary(R["Betaln"], doms=(Dom(0.2, 20.0), Dom(0.2, 20.0)),
                           fwd_doms=(Dom(0.05, 50.0, specials=(1.0, 0.5, 12.0)),
                                     Dom(0.05, 50.0, specials=(1.0, 30.0))))),
    # activations
    _spec("Erf", unary(R["Erf"])),
    _spec("Relu", unary(R["Relu"], Dom(0.1, 5.0, gap=0.1), WIDE)),
    # bounds on a grid of 0.25 and gradient inputs between its points: never at a kink
    _spec("HardTanh", attrs_unary("HardTanh",
                                  lambda d: dict(zip(("min_val", "max_val"),
                                                     d(st.sampled_from([(-1.0, 1.0), (0.0, 6.0), (-2.0, 0.5)])))),
                                  Dom(-7.0, 7.0, grid=0.25, offset=0.125),
                                  Dom(-8.0, 8.0, specials=(-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 6.0)))),
    _spec("Hardsigmoid", unary(R["Hardsigmoid"], Dom(-7.0, 7.0, grid=0.25, offset=0.125),
                               Dom(-8.0, 8.0, specials=(-3.0, -0.0, 0.0, 3.0)))),
    _spec("Threshold", attrs_unary("Threshold",
                                   lambda d: dict(zip(("threshold", "value"),
                                                      d(st.sampled_from([(0.5, 20.0), (-1.0, -2.0), (0.0, 0.0)])))),
                                   Dom(-7.0, 7.0, grid=0.25, offset=0.125),
                                   Dom(-8.0, 8.0, specials=(-1.0, -0.0, 0.0, 0.5)))),
    _spec("Hardshrink", attrs_unary("Hardshrink", lambda d: {"lambd": d(st.sampled_from([0.5, 1.0, 0.0]))},
                                    Dom(-7.0, 7.0, grid=0.25, offset=0.125),
                                    Dom(-8.0, 8.0, specials=(-1.0, -0.5, -0.0, 0.0, 0.5, 1.0)))),
    _spec("Softshrink", attrs_unary("Softshrink", lambda d: {"lambd": d(st.sampled_from([0.5, 1.0, 0.0]))},
                                    Dom(-7.0, 7.0, grid=0.25, offset=0.125),
                                    Dom(-8.0, 8.0, specials=(-1.0, -0.5, -0.0, 0.0, 0.5, 1.0)))),
    _spec("LeakyRelu", attrs_unary("LeakyRelu",
                                   lambda d: {"negative_slope": d(st.sampled_from([0.01, 0.2, 1.5, -0.5]))},
                                   Dom(0.1, 5.0, gap=0.1), WIDE)),
    _spec("Gelu", attrs_unary("Gelu", lambda d: {"approximate": d(st.sampled_from(["none", "tanh"]))})),
    _spec("Silu", unary(R["Silu"])),
    _spec("Mish", unary(R["Mish"], fwd_dom=Dom(-30.0, 30.0, specials=(0.0, -0.0, 20.0, -20.0)))),
    # kinks at -3 and 3 off the gradient grid (x = k/4 + 1/8); the forward domain has them
    _spec("Hardswish", unary(R["Hardswish"], Dom(-5.0, 5.0, grid=0.25, offset=0.125),
                             Dom(-6.0, 6.0, specials=(-3.0, 3.0, 0.0, -0.0)))),
    _spec("Softmax", softmax_sampler("Softmax")),
    _spec("LogSoftmax", softmax_sampler("LogSoftmax")),
    _spec("ScaledSoftmax", scaled_softmax_sampler),
    # normalization, dropout
    _spec("Normalize", normalize_sampler),
    _spec("AffineNormalize", affine_normalize_sampler),
    _spec("Dropout", dropout_sampler),
    _spec("AddGumbel", add_gumbel_sampler),
    # convolution and pooling
    _spec("Conv2d", conv2d_sampler),
    _spec("Conv2dInputGrad", conv2d_input_grad_sampler),
    _spec("Conv2dWeightGrad", conv2d_weight_grad_sampler),
    _spec("MaxPool2d", max_pool2d_sampler),
    _spec("MaxPool2dBackward", max_pool2d_backward_sampler),
    # losses
    _spec("SoftmaxCrossEntropy", softmax_cross_entropy_sampler),
    _spec("LinearLogSumExp", linear_log_sum_exp_sampler),
    _spec("CTCNegLogLikelihood", ctc_sampler),
    # probabilities away from 0 and 1 for gradients (d/dy is infinite there); forward meets them
    _spec("BinaryCrossEntropy", binary(R["BinaryCrossEntropy"], doms=(Dom(0.05, 0.95), Dom(0.0, 1.0)),
                                       fwd_doms=(PROBABILITY_FWD, PROBABILITY_FWD), scalars=False)),
    # the regression losses of d = input - target, reduced: gradients where d misses 0 and |d| = beta
    _spec("MSELoss", difference_loss_sampler("MSELoss", lambda d: {})),
    _spec("L1Loss", difference_loss_sampler("L1Loss", lambda d: {})),
    _spec("SmoothL1Loss", difference_loss_sampler("SmoothL1Loss",
                                                  lambda d: {"beta": d(st.sampled_from([0.5, 1.0, 2.0]))})),
    _spec("HuberLoss", difference_loss_sampler("HuberLoss",
                                               lambda d: {"delta": d(st.sampled_from([0.5, 1.0, 2.0]))})),
]

#: Ops defined on complex numbers whose specs above draw real samples: half of their float
#: draws get an imaginary part in [-0.5, 0.5] (:func:`or_complex`).  The real parts'
#: domains keep the complex points away from the branch cuts too (log, sqrt and the
#: inverse functions cut along the real or imaginary axis beyond where the domains reach).
COMPLEX_SAMPLES = (
    "Add", "Sub", "Mul", "Div", "Pow", "Neg", "Exp", "Log", "Log1p", "Sqrt", "Sin", "Cos", "Tanh", "Tan",
    "Sinh", "Cosh", "Arcsin", "Arccos", "Arctan", "Arcsinh", "Arccosh", "Arctanh", "Log2", "Log10", "Exp2",
    "Expm1", "Sinc", "Square", "Reciprocal", "Where", "Erf", "Erfc",
    "Sum", "Mean", "Prod", "Var", "Std", "CumSum", "CumProd",
    "Reshape", "Transpose", "Diagonal", "Unfold", "BroadcastTo", "SumTo", "Concatenate", "Stack", "Flip", "Pad",
    "Clone", "Tile",
    "Repeat", "Roll", "Tril", "Triu", "TakeAlongAxis", "ScatterAlongAxis", "GetItem", "GetItemCopy", "IndexAdd",
    "MatMul", "Einsum", "LogSumExp", "Linear", "ToDevice",
)
#: (``mg.linalg.vector_norm`` of a complex tensor is the norm of ``mg.abs(z)``: its op, VectorNorm,
#: only ever sees real numbers, and the complex function has PyTorch fixtures of its own.)
#: ... of which these return real numbers for complex input (a variance is real)
_REAL_FROM_COMPLEX = ("Var", "Std")
#: Forward-only ops defined on complex numbers (``==``, ``!=``, the logic, NaN checks): half of
#: their float draws get imaginary parts in {-1, 0, 1}, so exact ties and zeros stay common.
COMPLEX_TIES = ("Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "IsNan", "IsFinite")
for _s in SPECS:
    if _s.name in COMPLEX_SAMPLES:
        _s.sampler = or_complex(_s.sampler)
        if _s.name not in _REAL_FROM_COMPLEX:
            _s.out_dtype = _promoted
    elif _s.name in COMPLEX_TIES:
        _s.sampler = or_complex_ties(_s.sampler)

op_db: dict[str, OpSpec] = {}
for _s in SPECS:
    if _s.name in op_db:
        raise RuntimeError(f"op_db: two specs for {_s.name}")
    op_db[_s.name] = _s
del _s
