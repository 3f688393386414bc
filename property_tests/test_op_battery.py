"""One generic battery, run for every registered op (PyTorch's ``test_ops`` idea).

For each name in ``sorted(registry)`` the spec in :mod:`property_tests.op_db`
draws samples, and every test below runs on them:

(a) forward equals the op's NumPy ``reference`` (float, and int/bool inputs
    where NumPy semantics apply), with no RuntimeWarning, a 0-d array (never
    a NumPy scalar) for 0-d results, and forward-only ops never recorded;
(b) ``gradcheck`` in float64, of backward and of forward mode (``jvp``): each
    against central differences, and the two against each other by the
    dot-product test ``<u, J v> == <J^T u, v>``;
(c) ``gradgradcheck``, also in both modes (forward mode over the backward
    pass), with a cotangent that has exact zeros, and the symmetry of the
    Hessian of ``sum(a * f(b))`` at ``a = 0`` (second derivatives through a
    zero upstream gradient), unless the spec opts out with a reason;
(d) non-contiguous inputs -- permuted, reversed, strided and stride-0
    ``broadcast_to`` views wrapped without a copy -- and a non-contiguous
    upstream gradient (or tangent) give the same values, gradients and
    tangents as contiguous ones;
(e) float32 in, float32 out and float32 gradients, also inside the op's own
    backward (no hidden float64), close to the float64 results;
(f) forward and backward mutate neither the inputs, nor the upstream
    gradient, nor the forward output;
(g) gradients share memory with nothing: not each other, not the upstream
    gradient, not the inputs or the output.

Plus registry checks: every op has its own ``reference`` and a spec, every
differentiable op its own ``jvp`` rule, and every spec names a registered op --
registering an op without a spec (or without forward mode) fails here.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad_ckpt import from_numpy
from minigrad_ckpt.backward import grad as tape_grad
from minigrad_ckpt.ops import registry
from minigrad_ckpt.ops.base import Op
from minigrad_ckpt.tape import apply
from minigrad_ckpt.tensor import Tensor
from minigrad_ckpt.testing import gradcheck, gradgradcheck

from .op_db import OpSpec, Sample, op_db

OPS = sorted(n for n, c in registry.items() if c.__module__.startswith("minigrad_ckpt."))  # not tests' own
SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))  # single precision, real or complex
GRADGRAD_MAX_SIZE = 8  # second derivatives by finite differences cost O(n^2): keep inputs tiny


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def spec_for(name: str) -> OpSpec:
    spec = op_db.get(name)
    if spec is None:
        pytest.fail(f"op {name!r} is registered but has no OpSpec in property_tests/op_db.py; "
                    f"add one so the battery covers it")
    return spec


def grad_spec_for(name: str) -> OpSpec:
    spec = spec_for(name)
    if spec.forward_only or not registry[name].differentiable:
        pytest.skip(f"{name} is forward-only (not differentiable)")
    return spec


def make_args(sample: Sample, arrays: Any = None, *, requires_grad: bool = True) -> tuple[list, list]:
    """Tensors around ``arrays`` (no copy) and the list of those that require grad."""
    arrays = sample.inputs if arrays is None else arrays
    args: list[Any] = []
    wrt: list[Tensor] = []
    for v, d in zip(arrays, sample.diff):
        if isinstance(v, np.ndarray):
            t = from_numpy(v)
            if requires_grad and d:
                t.requires_grad = True
                wrt.append(t)
            args.append(t)
        else:
            args.append(v)
    return args, wrt


def copies(sample: Sample, dtype: Any = None) -> list[Any]:
    """Copies of the inputs; with ``dtype``, floats cast to it (and complex numbers to its precision)."""
    out = []
    for v in sample.inputs:
        if isinstance(v, np.ndarray):
            if dtype is not None and v.dtype.kind == "f":
                v = v.astype(dtype)
            elif dtype is not None and v.dtype.kind == "c":
                v = v.astype(np.result_type(dtype, np.complex64))
            else:
                v = v.copy()
        out.append(v)
    return out


def widen(a: np.ndarray) -> np.ndarray:
    """``a`` in double precision (complex128 for complex, float64 otherwise)."""
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def real_dot(a: Any, b: Any) -> float:
    """The real inner product ``sum(a * b)`` of two arrays, complex numbers as pairs of reals."""
    return float(np.sum((np.asarray(a) * np.conj(b)).real))


def tensor_dot(t: Tensor, b: Any) -> Tensor:
    """:func:`real_dot` of a Tensor and an array or another Tensor, differentiable in both
    (written with real products only, so it needs no complex multiplication)."""
    b = b if isinstance(b, Tensor) else from_numpy(np.ascontiguousarray(b))
    if t.dtype.kind == "c" or b.dtype.kind == "c":
        return (t.real * b.real).sum() + (t.imag * b.imag).sum()
    return (t * b).sum()


def draw_upstream(data: Any, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A non-trivial upstream gradient: distinct values, never all ones."""
    n = int(np.prod(shape, dtype=np.int64))
    elements = st.integers(-64, 64).filter(bool).map(lambda k: k / 8)
    g = data.draw(hnp.arrays(np.float64, shape, elements=elements, unique=n <= 100), label="upstream")
    if np.dtype(dtype).kind == "c":  # a complex upstream gradient: an imaginary part too
        im = data.draw(hnp.arrays(np.float64, shape, elements=elements), label="upstream (imaginary)")
        g = np.asarray(g + 1j * im)
    return g.astype(dtype)


def draw_cotangent_with_zeros(data: Any, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An upstream gradient in which some elements (at least one, if any) are exactly 0."""
    g = draw_upstream(data, shape, dtype)
    if g.size:
        zeros = data.draw(hnp.arrays(np.bool_, shape, elements=st.booleans()), label="zeros")
        zeros.reshape(-1)[data.draw(st.integers(0, g.size - 1), label="a zero")] = True
        g = np.where(zeros, 0, g).astype(dtype)
    return g


def _finite_max(a: np.ndarray) -> float:
    a = np.abs(np.asarray(a)).astype(np.float64)
    return float(np.max(a[np.isfinite(a)], initial=0.0))


def assert_same(actual: Any, expected: Any, *, rtol: float, atol: float, what: str) -> None:
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "fc" or expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def variant(data: Any, a: np.ndarray, label: str, broadcast: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(contiguous, view)`` with equal values; the view is non-contiguous or stride-0.

    Modes: ``permuted`` (axes permuted in memory), ``reversed`` (negative
    strides), ``strided`` (every other element of a bigger buffer) and
    ``broadcast`` (``np.broadcast_to`` along one axis: stride 0, read-only;
    the values become those of the first slice, the contiguous copy follows;
    skipped for specs with ``broadcast_views=False``: repeated rows make a
    matrix singular).
    """
    modes = ["strided", "reversed"]
    if a.ndim >= 2:
        modes.append("permuted")
    if broadcast and any(n > 1 for n in a.shape):
        modes.append("broadcast")
    mode = data.draw(st.sampled_from(modes), label=f"{label} layout")
    if mode == "permuted":
        perm = data.draw(st.permutations(range(a.ndim)).filter(lambda p: list(p) != sorted(p)),
                         label=f"{label} perm")
        view = np.ascontiguousarray(a.transpose(perm)).transpose(np.argsort(perm))
        return a.copy(), view
    if mode == "reversed":
        rev = (slice(None, None, -1),) * a.ndim + (Ellipsis,)  # ``...``: a 0-d view, not a scalar
        return a.copy(), a[rev].copy()[rev]
    if mode == "strided":
        if a.ndim == 0:
            buf = np.zeros(3, dtype=a.dtype)
            buf[1] = a
            return a.copy(), buf[1, ...]
        buf = np.zeros(tuple(2 * n + 1 for n in a.shape), dtype=a.dtype)
        sl = tuple(slice(1, 1 + 2 * n, 2) for n in a.shape)
        buf[sl] = a
        return a.copy(), buf[sl]
    axis = data.draw(st.sampled_from([i for i, n in enumerate(a.shape) if n > 1]), label=f"{label} axis")
    first = a[(slice(None),) * axis + (slice(0, 1),)].copy()
    view = np.broadcast_to(first, a.shape)
    return np.ascontiguousarray(view), view


def run(sample: Sample, arrays: list[Any], g: np.ndarray | None) -> tuple[Tensor, list]:
    """Forward on ``arrays``; with ``g``, also the gradients of the inputs that require grad."""
    args, wrt = make_args(sample, arrays, requires_grad=g is not None)
    out = apply(sample.op, *args)
    if g is None:
        return out, []
    grads = tape_grad(out, wrt, grad_outputs=from_numpy(g), allow_unused=True)
    return out, [None if r is None else r.numpy() for r in grads]


# ---------------------------------------------------------------------------
# registry checks
# ---------------------------------------------------------------------------
def test_every_registered_op_has_a_spec() -> None:
    missing = sorted(set(registry) - set(op_db))
    assert not missing, f"registered ops without an OpSpec in property_tests/op_db.py: {missing}"


def test_every_spec_names_a_registered_op() -> None:
    unknown = sorted(set(op_db) - set(registry))
    assert not unknown, f"OpSpecs for ops that are not registered: {unknown}"


@pytest.mark.parametrize("name", OPS)
def test_op_has_its_own_reference(name: str) -> None:
    cls = registry[name]
    assert cls.reference is not Op.reference, f"{name} has no NumPy reference (the test oracle)"


@pytest.mark.parametrize("name", OPS)
def test_differentiable_op_has_its_own_jvp(name: str) -> None:
    cls = registry[name]
    if cls.differentiable:
        assert cls.jvp is not Op.jvp, (
            f"{name} has no jvp rule: forward mode (mg.func.jvp, jacfwd, hessian) cannot run it; "
            f"add jvp(self, xp, tangents, out, *inputs) beside its backward")


@pytest.mark.parametrize("name", OPS)
def test_spec_flags_match_op(name: str) -> None:
    spec = spec_for(name)
    cls = registry[name]
    assert spec.forward_only == (not cls.differentiable), (
        f"{name}: spec.forward_only={spec.forward_only} but op.differentiable={cls.differentiable}")
    if spec.no_gradgrad is not None:
        assert spec.no_gradgrad.strip(), "a skipped second-derivative check needs a reason"


# ---------------------------------------------------------------------------
# (a) forward vs reference
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_forward_matches_reference(name: str, data: Any) -> None:
    spec = spec_for(name)
    dtype = np.dtype(data.draw(st.sampled_from(spec.forward_dtypes), label="dtype"))
    sample = data.draw(spec.samples(dtype, grad=False), label="sample")
    args, _ = make_args(sample, copies(sample), requires_grad=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = apply(sample.op, *args)
    with np.errstate(all="ignore"):
        ref = np.asarray(sample.op.reference(np, *copies(sample)))
    assert isinstance(out.numpy(), np.ndarray), f"forward returned {type(out._data).__name__}, not an array"
    assert out.dtype == ref.dtype, f"dtype {out.dtype} != reference {ref.dtype}"
    low = out.dtype.kind in "fc" and np.finfo(out.dtype).bits < 64  # float32, complex64, float16
    assert_same(out.numpy(), ref, rtol=1e-4 if low else 1e-9, atol=1e-5 if low else 1e-12, what="forward")
    assert not out.requires_grad and out.grad_fn is None

    float_inputs = any(isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in sample.inputs)
    if float_inputs and (spec.forward_only or ref.dtype.kind == "f"):
        # with inputs that require grad: recorded iff the op is differentiable (a
        # differentiable op with a non-float result, a cast to int, is never built so)
        diff = tuple(isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in sample.inputs)
        args, _ = make_args(Sample(sample.op, sample.inputs, diff), copies(sample))
        out2 = apply(sample.op, *args)
        assert_same(out2.numpy(), out.numpy(), rtol=0, atol=0, what="forward with requires_grad")
        if spec.forward_only:
            assert not out2.requires_grad and out2.grad_fn is None, "a forward-only op was recorded"
        else:
            assert out2.requires_grad and out2.grad_fn is not None, "a differentiable op was not recorded"


# ---------------------------------------------------------------------------
# (b), (c) gradients against finite differences
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_gradcheck(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    sample = data.draw(spec.samples("float64", grad=True), label="sample")
    args, _ = make_args(sample, copies(sample))
    op = sample.op
    gradcheck(lambda *a: apply(op, *a), args, eps=spec.eps, atol=spec.grad_atol, rtol=spec.grad_rtol)


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_gradgradcheck(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    if spec.no_gradgrad:
        pytest.skip(spec.no_gradgrad)
    sample = data.draw(spec.samples("float64", grad=True, max_size=GRADGRAD_MAX_SIZE), label="sample")
    args, _ = make_args(sample, copies(sample))
    op = sample.op
    # The cotangent has exact zeros: the derivative of the gradient with respect to
    # the cotangent is checked there too, which a gradient masked on ``g == 0`` fails.
    out = apply(op, *args)
    v = draw_cotangent_with_zeros(data, out.shape, out.dtype)
    gradgradcheck(lambda *a: apply(op, *a), args, grad_outputs=[v], eps=spec.eps,
                  atol=spec.grad_atol, rtol=spec.grad_rtol)


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_hessian_is_symmetric_through_a_zero_scale(name: str, data: Any) -> None:
    """``s = sum(a * f(b))`` at ``a = 0``: ``d/da d/db s`` must equal ``(d/db d/da s)^T``.

    ``d/db s`` is f's backward with the upstream gradient ``a = 0``; its
    derivative with respect to ``a`` is ``J_f^T`` -- the same matrix that
    ``d/db <f(b), w>`` gives with a nonzero ``w``.  Compared as
    ``<w, H_ab u> == <u, H_ba w>`` for random ``u``, ``w``: exact, no finite
    differences, so it runs on full-size samples.
    """
    spec = grad_spec_for(name)
    if spec.no_gradgrad:
        pytest.skip(spec.no_gradgrad)
    sample = data.draw(spec.samples("float64", grad=True), label="sample")
    args, wrt = make_args(sample, copies(sample))
    out = apply(sample.op, *args)
    if not np.isfinite(out.numpy()).all():  # NaN values (a mean over an empty batch): nothing to compare
        return
    # (complex outputs and inputs: every product is the real inner product, <a, out> = Re sum(a conj(out)))
    a = from_numpy(np.zeros(out.shape, dtype=out.dtype)).requires_grad_()
    us = [draw_upstream(data, t.shape, t.dtype) for t in wrt]
    w = draw_upstream(data, out.shape, out.dtype)
    gw = tape_grad(out, wrt, grad_outputs=from_numpy(w), allow_unused=True, retain_graph=True)
    gb = tape_grad(tensor_dot(out, a), wrt, create_graph=True, allow_unused=True)
    inner = sum((tensor_dot(g, u) for g, u in zip(gb, us) if g is not None),
                start=from_numpy(np.zeros(())))
    if inner.requires_grad:
        (ha,) = tape_grad(inner, [a], allow_unused=True)
        lhs = 0.0 if ha is None else real_dot(ha.numpy(), w)
    else:
        lhs = 0.0
    rhs = sum(real_dot(g.numpy(), u) for g, u in zip(gw, us) if g is not None)
    scale = max(1.0, sum(float(np.sum(np.abs(g.numpy() * u))) for g, u in zip(gw, us) if g is not None))
    assert abs(lhs - rhs) <= 1e-9 * scale, (
        f"{name}: <w, d/da d/db s u> = {lhs} but <u, d/db d/da s w> = {rhs} at a = 0 "
        f"(a second derivative through a zero upstream gradient is lost)")


# ---------------------------------------------------------------------------
# (d) non-contiguous inputs and upstream gradients
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_noncontiguous_inputs_and_upstream(name: str, data: Any) -> None:
    spec = spec_for(name)
    differentiable = not spec.forward_only
    sample = data.draw(spec.samples("float64", grad=differentiable), label="sample")
    contig, views = [], []
    for i, v in enumerate(sample.inputs):
        if isinstance(v, np.ndarray):
            c, w = variant(data, v, f"input {i}", broadcast=spec.broadcast_views)
        else:
            c = w = v
        contig.append(c)
        views.append(w)
    out_c, _ = run(sample, contig, None)
    g_c = g_v = None
    if differentiable:
        g_c, g_v = variant(data, draw_upstream(data, out_c.shape, out_c.dtype), "upstream")
    out_c, grads_c = run(sample, contig, g_c)
    out_v, grads_v = run(sample, views, g_v)
    assert_same(out_v.numpy(), out_c.numpy(), rtol=1e-12, atol=1e-12, what="forward on views")
    for k, (a, b) in enumerate(zip(grads_v, grads_c)):
        assert (a is None) == (b is None)
        if a is not None:
            assert_same(a, b, rtol=1e-10, atol=1e-12, what=f"gradient of input {k} with views")


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_jvp_noncontiguous_inputs_and_tangents(name: str, data: Any) -> None:
    # a jvp rule, like backward, must not assume contiguous arrays
    spec = grad_spec_for(name)
    sample = data.draw(spec.samples("float64", grad=True), label="sample")
    contig, views = [], []
    for i, v in enumerate(sample.inputs):
        c, w = variant(data, v, f"input {i}", broadcast=spec.broadcast_views) if isinstance(v, np.ndarray) else (v, v)
        contig.append(c)
        views.append(w)
    t_contig, t_views = [], []
    for i, (v, d) in enumerate(zip(sample.inputs, sample.diff)):
        if d and isinstance(v, np.ndarray):
            c, w = variant(data, draw_upstream(data, v.shape, v.dtype), f"tangent {i}")
        else:
            c = w = None
        t_contig.append(c)
        t_views.append(w)
    if all(t is None for t in t_contig):
        return
    results = []
    for arrays, tangents in ((contig, t_contig), (views, t_views)):
        out = apply(sample.op, *make_args(sample, arrays, requires_grad=False)[0])
        r = sample.op.jvp(out.device.xp, tuple(tangents), out.numpy(), *arrays)
        results.append(None if r is None else np.broadcast_to(r, out.shape))
    assert (results[0] is None) == (results[1] is None)
    if results[0] is not None:
        assert_same(results[1], results[0], rtol=1e-10, atol=1e-12, what="jvp with views")


# ---------------------------------------------------------------------------
# (e) float32 stays float32
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_float32_stays_float32(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    f32 = np.dtype(np.float32)
    sample = data.draw(spec.samples(f32, grad=True), label="sample")
    args, wrt = make_args(sample, copies(sample))
    out = apply(sample.op, *args)
    assert out.dtype == spec.expected_dtype(sample, f32), f"float32 inputs gave a {out.dtype} output"
    g = draw_upstream(data, out.shape, out.dtype)

    # the op's own backward, before the engine's casts: no float64 (or complex128) sneaks in
    node = out.grad_fn
    raw = node.op.backward(node.xp, g, *node.saved)
    raw = raw if isinstance(raw, tuple) else (raw,)
    if out.dtype in SINGLE:
        for k, r in enumerate(raw):
            if r is not None and hasattr(r, "dtype"):
                assert r.dtype in SINGLE, f"{name}.backward returned a {r.dtype} gradient for input {k}"

    grads = tape_grad(out, wrt, grad_outputs=from_numpy(g), allow_unused=True)
    for t, r in zip(wrt, grads):
        assert r is not None and r.dtype == t.dtype and r.shape == t.shape

    # and close to the float64 computation on the same values
    out64, grads64 = run(sample, copies(sample, np.float64), widen(g))
    scale = max(1.0, _finite_max(out64.numpy()))
    assert_same(widen(out.numpy()), out64.numpy(), rtol=2e-3, atol=1e-4 * scale, what="float32 forward")
    for k, (r, r64) in enumerate(zip(grads, grads64)):
        gscale = max(1.0, _finite_max(r64))
        assert_same(widen(r.numpy()), r64, rtol=2e-3, atol=1e-4 * gscale,
                    what=f"float32 gradient {k}")


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_jvp_float32_stays_float32(name: str, data: Any) -> None:
    # the op's own jvp rule, before the engine's casts: float32 tangents in, float32 out
    spec = grad_spec_for(name)
    f32 = np.dtype(np.float32)
    sample = data.draw(spec.samples(f32, grad=True), label="sample")
    inputs = copies(sample)
    out = apply(sample.op, *make_args(sample, inputs, requires_grad=False)[0])
    tangents = tuple(draw_upstream(data, v.shape, v.dtype) if d else None
                     for v, d in zip(inputs, sample.diff))
    if all(t is None for t in tangents):
        return
    raw = sample.op.jvp(out.device.xp, tangents, out.numpy(), *inputs)
    if out.dtype in SINGLE and raw is not None:
        assert raw.dtype in SINGLE, f"{name}.jvp returned a {raw.dtype} tangent for float32 inputs"
    # and close to the float64 computation on the same values
    inputs64 = copies(sample, np.float64)
    out64 = apply(sample.op, *make_args(sample, inputs64, requires_grad=False)[0])
    t64 = tuple(None if t is None else widen(t) for t in tangents)
    raw64 = sample.op.jvp(out64.device.xp, t64, out64.numpy(), *inputs64)
    if raw is not None and raw64 is not None:
        r64 = np.broadcast_to(raw64, out64.shape)
        scale = max(1.0, _finite_max(r64))
        assert_same(widen(np.broadcast_to(raw, out.shape)), r64, rtol=2e-3,
                    atol=1e-4 * scale, what="float32 tangent")


# ---------------------------------------------------------------------------
# (f) no mutation, (g) no shared memory
# ---------------------------------------------------------------------------
def _readonly(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        a = a.copy()
        a.flags.writeable = False
    return a


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_no_mutation(name: str, data: Any) -> None:
    spec = spec_for(name)
    sample = data.draw(spec.samples("float64", grad=not spec.forward_only), label="sample")
    before = copies(sample)
    # read-only inputs: a write raises at once instead of corrupting silently
    arrays = [_readonly(v) for v in sample.inputs]
    out, _ = run(sample, arrays, None)
    if not spec.forward_only:
        args, wrt = make_args(sample, arrays)
        out = apply(sample.op, *args)
        out_before = out.numpy().copy()
        g = _readonly(draw_upstream(data, out.shape, out.dtype))
        g_before = g.copy()
        tape_grad(out, wrt, grad_outputs=from_numpy(g), allow_unused=True)
        np.testing.assert_array_equal(g, g_before, err_msg="backward mutated the upstream gradient")
        np.testing.assert_array_equal(out.numpy(), out_before, err_msg="backward mutated the forward output")
    for k, (a, b) in enumerate(zip(arrays, before)):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=f"input {k} was mutated")


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_gradients_share_no_memory(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    sample = data.draw(spec.samples("float64", grad=True), label="sample")
    arrays = copies(sample)
    args, wrt = make_args(sample, arrays)
    out = apply(sample.op, *args)
    g = draw_upstream(data, out.shape, out.dtype)
    grads = tape_grad(out, wrt, grad_outputs=from_numpy(g), allow_unused=True, retain_graph=True)
    # the same through .backward(): into the leaves' .grad
    out.backward(from_numpy(g))
    for via, results in (("mg.grad", [r.numpy() for r in grads if r is not None]),
                         (".backward", [t.grad.numpy() for t in wrt])):
        note(f"checking {via}")
        for (i, a), (j, b) in itertools.combinations(enumerate(results), 2):
            assert not np.shares_memory(a, b), f"{via}: gradients {i} and {j} share memory"
        others = [("the upstream gradient", g), ("the output", out.numpy())]
        others += [(f"input {k}", v) for k, v in enumerate(arrays) if isinstance(v, np.ndarray)]
        for i, a in enumerate(results):
            for what, b in others:
                assert not np.shares_memory(a, b), f"{via}: gradient {i} shares memory with {what}"


# ---------------------------------------------------------------------------
# regressions the battery found (kept as plain examples so they run every time)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("values", [[0.0, 2.0, 3.0], [0.0, 0.0, 3.0], [2.0, 0.0, 0.0, -1.5], [0.0, 0.0, 0.0]])
def test_prod_second_derivative_with_zeros(values: list[float]) -> None:
    # Prod's backward once gave the non-zero positions of a slice with one zero a
    # constant 0, so d/d(zero factor) of that gradient was lost under create_graph
    x = from_numpy(np.array(values)).requires_grad_()
    op = registry["Prod"](axes=(0,), keepdims=False, in_shape=x.shape)
    assert gradgradcheck(lambda t: apply(op, t), [x])


def test_pad_of_a_0d_tensor() -> None:
    # np.pad rejects pad_width=() as "not of integral type"; mg.pad(0-d) crashed
    import minigrad_ckpt as mg

    x = from_numpy(np.array(1.5)).requires_grad_()
    y = mg.pad(x, 2)
    assert y.shape == () and y.item() == 1.5
    assert gradgradcheck(lambda t: mg.pad(t, 1), [x])


@pytest.mark.parametrize("fn", ["conv2d", "max_pool2d", "dropout"])
def test_double_backward_through_nn_kernels(fn: str) -> None:
    # backward with create_graph=True calls the kernels through the differentiable
    # namespace (minigrad_ckpt.functional), which once lacked them: AttributeError
    import minigrad_ckpt as mg
    import minigrad_ckpt.nn.functional as nnf

    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((1, 2, 4, 4)), dtype="float64", requires_grad=True)
    w = mg.tensor(rng.standard_normal((3, 2, 2, 2)), dtype="float64", requires_grad=True)
    if fn == "conv2d":
        y = nnf.conv2d(x, w, stride=1, padding=1)
    elif fn == "max_pool2d":
        y = nnf.max_pool2d(x * x, 2)
    else:
        y = nnf.dropout(x * x, p=0.5)
    (gx,) = mg.grad((y * y).sum(), [x], create_graph=True)
    assert gx.requires_grad
    (hx,) = mg.grad(gx.sum(), [x])
    assert hx.shape == x.shape and np.all(np.isfinite(hx.numpy()))
