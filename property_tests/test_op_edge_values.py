"""The op battery's edge-value pass: every registered op at the values floating point is made of.

For each op, a sample is drawn from its spec in :mod:`property_tests.op_db`
(the forward domain) and some elements of each floating-point input are
replaced by edge values -- ``+-inf``, NaN, ``-0.0``, the largest and smallest
normal magnitudes and the smallest subnormal -- in float64 and float32.  The
op's forward must then equal its NumPy ``reference`` run on the same arrays:
the same shape and dtype, NaN exactly where the reference has NaN, infinities
of the same sign, zeros of the same sign, and finite values to round-off.
Elementwise ops are also run on empty inputs (shape ``(0,)`` and ``(2, 0)``)
and on 0-d ones.

Where this engine answers differently on purpose, the difference is a
convention documented in ``docs/ops.md`` ("Edge values") and listed in
:data:`CONVENTIONS` below with the reason; the test checks that every listed
op still differs (a stale entry fails, so the list stays true).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from minigrad_ckpt import from_numpy
from minigrad_ckpt.ops import registry
from minigrad_ckpt.ops.elementwise import BinaryElementwise, UnaryElementwise
from minigrad_ckpt.tape import apply

from .op_db import op_db
from .test_op_battery_strict import run_on

OPS = sorted(n for n, c in registry.items() if c.__module__.startswith("minigrad_ckpt.") and n in op_db)


def edge_values(dtype: Any) -> np.ndarray:
    """The edge values of ``dtype``: infinities, NaN, signed zeros, extreme normals, a subnormal."""
    fi = np.finfo(dtype)
    sub = fi.smallest_subnormal
    vals = [np.inf, -np.inf, np.nan, -0.0, 0.0, fi.max, -fi.max, fi.tiny, -fi.tiny, sub, -sub]
    return np.array(vals, dtype=dtype)


#: op name -> (the dtypes it differs in, why) from its NumPy reference at edge values (docs/ops.md,
#: "Edge values").  Only those dtypes are exempt; the first is where the still-differs test searches.
CONVENTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "Polygamma": (("float64", "float32"),
                  "NaN at the poles (the negative integers, every float beyond -2^52) and at -inf"),
    "Conv2dInputGrad": (("float64", "float32"),
                        "sums only the terms that exist: an infinite gradient meets no structural zero"),
    "Conv2dWeightGrad": (("float64", "float32"),
                         "sums only the terms that exist: an infinite gradient meets no structural zero"),
    "MatrixExp": (("float64", "float32"), "an infinite entry makes every entry NaN (as PyTorch's for n > 1)"),
    "Normalize": (("float32",), "float32 in, float32 arithmetic: the variance of values below ~1e-19 underflows to 0"),
    "AffineNormalize": (("float32",), "float32 in, float32 arithmetic (as PyTorch's): the variance of values beyond "
                        "~1e19 overflows, and the normalized value is 0 (times an infinite weight: NaN)"),
    "ScaledSoftmax": (("float32",), "float32 in, float32 arithmetic (as PyTorch's softmax(x * scale)): a score "
                      "beyond float32's max / scale is inf once scaled, and inf - inf NaN"),
    "LuFactor": (("float32",), "float32 in, float32 arithmetic (as LAPACK's sgetrf): a multiplier beyond float32's "
                 "range is inf and 0 * inf NaN, where the float64 reference's multiplier is finite"),
}

#: Ops whose forward is a sum of products that a BLAS routine evaluates in its own order, with fused
#: multiply-adds, where the reference sums unfused in another order (docs/ops.md, "Edge values").  Where
#: such a sum meets infinity or overflows, IEEE arithmetic leaves the answer to the order: ``inf + (-2 *
#: max)`` is NaN unfused (the product rounds to ``-inf`` first) and ``inf`` fused.  At the positions where
#: the reference is not finite the op may answer NaN or the same infinity; everywhere else it must agree.
SUMS_IN_BLAS_ORDER = {"Conv2d"}


def _with_edges(data: Any, a: np.ndarray, label: str) -> np.ndarray:
    """``a`` with some elements (at least one, if any) replaced by edge values of its dtype."""
    if a.dtype.kind != "f" or a.size == 0:
        return a
    a = a.copy()
    edges = edge_values(a.dtype)
    flat = a.reshape(-1)
    chosen = data.draw(st.lists(st.integers(0, a.size - 1), min_size=1, max_size=max(1, a.size // 2), unique=True),
                       label=f"{label} positions")
    for i in chosen:
        flat[i] = edges[data.draw(st.integers(0, len(edges) - 1), label=f"{label} edge")]
    return a


def _forward(op: Any, inputs: tuple) -> np.ndarray:
    args = [from_numpy(v) if isinstance(v, np.ndarray) else v for v in inputs]
    if not any(isinstance(v, np.ndarray) for v in inputs):
        args[0] = from_numpy(np.asarray(args[0]))
    return np.asarray(apply(op, *args).numpy())


def _reference(op: Any, inputs: tuple) -> np.ndarray:
    return np.asarray(op.reference(np, *[v.copy() if isinstance(v, np.ndarray) else v for v in inputs]))


def differences(got: np.ndarray, want: np.ndarray, signed_zeros: bool = True,
                summed_in_any_order: bool = False) -> list[str]:
    """How ``got`` differs from ``want`` at edge values (empty: it does not); ``signed_zeros``:
    whether the sign of a zero counts (for elementwise ops, where an output is its input's image);
    ``summed_in_any_order``: where ``want`` is not finite, NaN and ``want``'s infinity are both right
    (see :data:`SUMS_IN_BLAS_ORDER`)."""
    if got.shape != want.shape:
        return [f"shape {got.shape} != {want.shape}"]
    if got.dtype != want.dtype and not (got.dtype.kind == want.dtype.kind == "f"):
        return [f"dtype {got.dtype} != {want.dtype}"]
    if got.dtype.kind not in "fc":
        return [] if np.array_equal(got, want) else ["values"]
    out = []
    g, w = got.astype(np.complex128).ravel(), want.astype(np.complex128).ravel()
    for part, gp, wp in (("real", g.real, w.real), ("imag", g.imag, w.imag)):
        if summed_in_any_order:
            gp, wp = _order_free(gp, wp)
        nan_g, nan_w = np.isnan(gp), np.isnan(wp)
        if (nan_g != nan_w).any():
            i = int(np.flatnonzero(nan_g != nan_w)[0])
            out.append(f"{part}: {gp[i]!r} where the reference has {wp[i]!r} (flat index {i})")
            continue
        inf = np.isinf(gp) | np.isinf(wp)
        if (gp[inf] != wp[inf]).any():
            out.append(f"{part}: infinities differ ({gp[inf]} vs {wp[inf]})")
        zero = (gp == 0) & (wp == 0)
        # the sign of a zero is compared for real results only: complex arithmetic's zero signs
        # depend on the formula NumPy's loop uses (1 / -0.5j has real part 0.0 or -0.0)
        if signed_zeros and got.dtype.kind == "f" and (np.signbit(gp[zero]) != np.signbit(wp[zero])).any():
            out.append(f"{part}: the sign of a zero differs")
        fin = np.isfinite(gp) & np.isfinite(wp)
        single = {got.dtype, want.dtype} & {np.dtype(np.float32), np.dtype(np.complex64)}
        tol = 1e-5 if single else 1e-10
        bad = np.abs(gp[fin] - wp[fin]) > tol * np.maximum(1.0, np.abs(wp[fin]))
        if bad.any():
            out.append(f"{part}: finite values differ ({gp[fin][bad][:3]} vs {wp[fin][bad][:3]})")
    return out


def _order_free(got: np.ndarray, want: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``got`` and ``want`` with the order-dependent answers made equal: where one is NaN and the other
    an infinity and ``want`` is not finite, both become NaN (a NaN against a finite value, or two
    infinities of opposite signs, still differ)."""
    swapped = ~np.isfinite(want) & (np.isnan(got) != np.isnan(want)) & ~np.isfinite(got)
    got, want = got.copy(), want.copy()
    got[swapped] = want[swapped] = np.nan
    return got, want


def _check(name: str, data: Any, dtype: str) -> list[str]:
    spec = op_db[name]
    sample = data.draw(spec.samples(dtype, grad=False, max_size=12), label="sample")
    inputs = tuple(_with_edges(data, v, f"input {i}") if isinstance(v, np.ndarray) else v
                   for i, v in enumerate(sample.inputs))
    note(f"{sample.op!r} on {inputs!r}")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _reference(sample.op, inputs)
        except (ValueError, np.linalg.LinAlgError, FloatingPointError, OverflowError):
            return []  # the reference itself refuses these values: nothing to compare
        try:
            got = _forward(sample.op, inputs)
        except (ValueError, np.linalg.LinAlgError, FloatingPointError, OverflowError) as exc:
            return [f"raised {type(exc).__name__}: {exc} where the reference answers"]
    return differences(got, want, signed_zeros=issubclass(registry[name], (UnaryElementwise, BinaryElementwise)),
                       summed_in_any_order=name in SUMS_IN_BLAS_ORDER)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", OPS)
@settings(max_examples=10)
@given(data=st.data())
def test_forward_at_edge_values_equals_the_reference(name, dtype, data):
    if dtype not in op_db[name].forward_dtypes and "float64" in op_db[name].forward_dtypes:
        dtype = "float64"
    problems = _check(name, data, dtype)
    if dtype in CONVENTIONS.get(name, ((), ""))[0]:
        return  # documented: test_every_convention_is_still_one checks it still differs
    assert not problems, f"{name} at edge values ({dtype}): " + "; ".join(problems)


ELEMENTWISE = [n for n in OPS if issubclass(registry[n], (UnaryElementwise, BinaryElementwise))]


@pytest.mark.parametrize("shape", [(0,), (2, 0), ()])
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_ops_on_empty_and_0d_inputs(name, shape):
    op_cls = registry[name]
    n = 1 if issubclass(op_cls, UnaryElementwise) else 2
    rng = np.random.default_rng(0)
    inputs = tuple(np.asarray(rng.uniform(0.25, 0.75, shape)) for _ in range(n))
    op = _default_instance(name)
    with np.errstate(all="ignore"):
        try:
            want = _reference(op, inputs)
        except (IndexError, ValueError):  # not defined on this shape (LSTM gates need 4 of them)
            with pytest.raises((IndexError, ValueError)):
                _forward(op, inputs)
            return
        got = _forward(op, inputs)
    assert got.shape == want.shape == shape and got.dtype == want.dtype
    assert not differences(got, want)


def _default_instance(name: str) -> Any:
    """The op as its spec builds it (static attributes included), from one drawn sample."""
    found = []

    @settings(max_examples=1, database=None)
    @given(op_db[name].samples("float64", grad=False, max_size=4))
    def grab(sample):
        found.append(sample.op)

    grab()
    return found[0]


def test_a_sum_in_blas_order_may_answer_nan_or_the_infinity_where_the_reference_is_not_finite():
    inf, nan = np.inf, np.nan
    want = np.array([nan, nan, inf, -inf, 1.0, inf])
    assert not differences(np.array([inf, nan, nan, -inf, 1.0, inf]), want, summed_in_any_order=True)
    assert differences(np.array([inf, nan, nan, -inf, 1.0, inf]), want)  # the rule is opt-in
    for got in ([nan, nan, inf, -inf, nan, inf], [nan, nan, inf, -inf, inf, inf], [nan, nan, inf, inf, 1.0, inf],
                [nan, 2.0, inf, -inf, 1.0, inf]):
        assert differences(np.array(got), want, summed_in_any_order=True), got


def test_the_convolution_that_meets_an_infinity_beside_an_overflowing_product():
    """``inf * inf + (-2) * max``: NaN unfused (NumPy's loop), ``inf`` with BLAS's fused multiply-add;
    the other entries are the same in any order."""
    from minigrad_ckpt.ops.conv import Conv2d

    x = np.array([[[[np.inf, -2.0]]], [[[-2.0, -2.0]]]])
    w = np.array([[[[0.0, 0.0]]], [[[np.inf, np.finfo(np.float64).max]]]])
    op = Conv2d(stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1)
    with np.errstate(all="ignore"):
        got, want = _forward(op, (x, w)), _reference(op, (x, w))
    assert np.isnan(want[0, 1, 0, 0]) and (np.isnan(got[0, 1, 0, 0]) or got[0, 1, 0, 0] == np.inf)
    assert not differences(got, want, summed_in_any_order=True)


def _float32(*rows: Any) -> np.ndarray:
    return np.array(rows, dtype=np.float32)


_F32_MAX, _F32_TINY = float(np.finfo(np.float32).max), float(np.finfo(np.float32).tiny)

#: The inputs that showed a float32 convention (what random searches drew), checked directly: a
#: derandomized search's draws move with Hypothesis's version and with what ran before it.
WITNESSES: dict[str, Any] = {
    "AffineNormalize": lambda: (registry["AffineNormalize"](axes=(0,), eps=1e-5),
                                (_float32(_F32_MAX, 0.0), _float32(np.inf, 0.0), _float32(np.inf, 0.0))),
    "LuFactor": lambda: (registry["LuFactor"](pivot=False),
                         (_float32([_F32_TINY, 0, 0], [_F32_MAX, np.inf, np.inf], [0, 0, 4]),)),
    "ScaledSoftmax": lambda: (registry["ScaledSoftmax"](scale=2.5, causal=False, k=0, zero_empty_rows=True),
                              (_float32([_F32_MAX]),)),
}


@pytest.mark.parametrize("name", sorted(CONVENTIONS))
def test_every_convention_is_still_one(name):
    if name in WITNESSES:
        op, inputs = WITNESSES[name]()
        with np.errstate(all="ignore"):
            assert differences(_forward(op, inputs), _reference(op, inputs)), f"{name} now equals its reference"
        return
    seen = []
    dtype = CONVENTIONS[name][0][0]

    @settings(max_examples=300, database=None, derandomize=True)  # the same search under any profile
    @given(data=st.data())
    def search(data):
        seen.extend(_check(name, data, dtype))

    search()
    assert seen, f"{name} is listed in CONVENTIONS but equals the reference at every edge value drawn: remove it"


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("name", OPS)
@settings(max_examples=10)
@given(data=st.data())
def test_forward_at_edge_values_on_the_strict_device_equals_the_cpu(device, name, data):
    """The same edge values on the strict stand-in devices (a GPU's rules: no host mixing, and on
    ``strict-f32`` no float64 at all): the forward is bit for bit the CPU's."""
    spec = op_db[name]
    dtype = "float32" if device == "strict-f32" else "float64"
    if dtype not in spec.forward_dtypes:
        pytest.skip(f"{name} is not checked in {dtype}")
    sample = data.draw(spec.samples(dtype, grad=False, max_size=12), label="sample")
    inputs = [_with_edges(data, v, f"input {i}") if isinstance(v, np.ndarray) else v
              for i, v in enumerate(sample.inputs)]
    note(f"{sample.op!r} on {inputs!r}")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want, _ = run_on("cpu", sample, [v.copy() if isinstance(v, np.ndarray) else v for v in inputs], None)
        except (ValueError, np.linalg.LinAlgError, FloatingPointError, OverflowError):
            return  # refused on the CPU: the strict device's refusal is checked by the battery
        if device == "strict-f32" and want.dtype in (np.float64, np.complex128):
            return  # forbidden there (the battery checks the refusal)
        got, _ = run_on(device, sample, [v.copy() if isinstance(v, np.ndarray) else v for v in inputs], None)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "c":  # see test_op_battery_strict._assert_same
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(got.dtype).eps, atol=0)
    else:
        np.testing.assert_array_equal(got, want)
