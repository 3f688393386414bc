"""One generic battery, run for every registered op (PyTorch's ``test_ops`` idea).

For each name in ``sorted(registry)`` the spec in :mod:`property_tests.op_db`
draws samples, and every test below runs one check of
:func:`minigrad_ckpt.testing.check_op` on them -- the same checks users run on
their own ops, written once there -- with upstream gradients, tangents,
cotangents and memory layouts drawn by Hypothesis (:class:`HypothesisDraws`),
so a failure shrinks to a small example:

(a) forward equals the op's NumPy ``reference`` (float, and int/bool inputs
    where NumPy semantics apply), with no RuntimeWarning, a 0-d array (never
    a NumPy scalar) for 0-d results, and forward-only ops never recorded;
(b) ``gradcheck`` in float64, of backward and of forward mode (``jvp``): each
    against central differences, and the two against each other by the
    dot-product test ``<u, J v> == <J^T u, v>``;
(c) ``gradgradcheck``, also in both modes (forward mode over the backward
    pass), with a cotangent that has exact zeros, and ``hessian symmetry``:
    of ``sum(a * f(b))`` at ``a = 0`` (second derivatives through a zero
    upstream gradient), unless the spec opts out with a reason;
(d) non-contiguous inputs -- permuted, reversed, strided and stride-0
    ``broadcast_to`` views wrapped without a copy -- and a non-contiguous
    upstream gradient (or tangent) give the same values, gradients and
    tangents as contiguous ones;
(e) float32 in, float32 out and float32 gradients and tangents, also inside
    the op's own backward and jvp (no hidden float64), close to the float64 results;
(f) forward and backward mutate neither the inputs, nor the upstream
    gradient, nor the forward output;
(g) the output shares memory with no input unless the op is a view, and
    gradients share memory with nothing: not each other, not the upstream
    gradient, not the inputs or the output.

Plus registry checks: every op has its own ``reference`` and a spec, every
differentiable op its own ``jvp`` rule, and every spec names a registered op --
registering an op without a spec (or without forward mode) fails here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad_ckpt import from_numpy
from minigrad_ckpt.ops import registry
from minigrad_ckpt.ops.base import Op
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import gradgradcheck
from minigrad_ckpt.testing.check_op import CHECKS, Draws, check_op

from .op_db import OpSpec, Sample, op_db

OPS = sorted(n for n, c in registry.items() if c.__module__.startswith("minigrad_ckpt."))  # not tests' own
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


def copies(sample: Sample) -> list[Any]:
    """The inputs of ``sample``, arrays copied (the strict-device battery runs one sample several times)."""
    return [v.copy() if isinstance(v, np.ndarray) else v for v in sample.inputs]


def draw_upstream(data: Any, shape: tuple[int, ...], dtype: Any, label: str = "upstream") -> np.ndarray:
    """A non-trivial upstream gradient: distinct values, never all ones."""
    n = int(np.prod(shape, dtype=np.int64))
    elements = st.integers(-64, 64).filter(bool).map(lambda k: k / 8)
    g = data.draw(hnp.arrays(np.float64, shape, elements=elements, unique=n <= 100), label=label)
    if np.dtype(dtype).kind == "c":  # a complex upstream gradient: an imaginary part too
        im = data.draw(hnp.arrays(np.float64, shape, elements=elements), label=f"{label} (imaginary)")
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


class HypothesisDraws(Draws):
    """check_op's random material drawn with Hypothesis: upstream gradients with distinct
    values, one cotangent with exact zeros, and the layouts of :func:`variant`."""

    def __init__(self, data: Any, broadcast_views: bool = True) -> None:
        self.data, self.broadcast_views = data, broadcast_views

    def upstream(self, shape: tuple[int, ...], dtype: Any, label: str = "upstream") -> np.ndarray:
        return draw_upstream(self.data, shape, dtype, label)

    def cotangents(self, shape: tuple[int, ...], dtype: Any) -> list[np.ndarray]:
        return [draw_cotangent_with_zeros(self.data, shape, dtype)]

    def layout(self, a: np.ndarray, label: str) -> tuple[np.ndarray, np.ndarray]:
        return variant(self.data, a, label, broadcast=self.broadcast_views or not label.startswith("input"))


def battery(check: str, spec: OpSpec, sample: Sample, data: Any, *, differentiate: bool = True) -> None:
    """Run one check of ``check_op`` on ``sample`` with the spec's tolerances."""
    diff = [i for i, (v, d) in enumerate(zip(sample.inputs, sample.diff))
            if differentiate and d and isinstance(v, np.ndarray) and v.dtype.kind in "fc"]
    ran = check_op(sample.op, *sample.inputs, grad_inputs=diff, skip=[c for c in CHECKS if c != check],
                   eps=spec.eps, atol=spec.grad_atol, rtol=spec.grad_rtol,
                   draws=HypothesisDraws(data, spec.broadcast_views))
    assert ran == [check] or not diff, ran


# ---------------------------------------------------------------------------
# registry checks
# ---------------------------------------------------------------------------
def test_every_registered_op_has_a_spec() -> None:
    missing = sorted(set(OPS) - set(op_db))  # the package's ops: a test's own Op subclass registers too
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
    battery("forward", spec, data.draw(spec.samples(dtype, grad=False), label="sample"), data, differentiate=False)


# ---------------------------------------------------------------------------
# (b), (c) gradients against finite differences, and second derivatives
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_gradcheck(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    battery("gradcheck", spec, data.draw(spec.samples("float64", grad=True), label="sample"), data)


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_gradgradcheck(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    if spec.no_gradgrad:
        pytest.skip(spec.no_gradgrad)
    sample = data.draw(spec.samples("float64", grad=True, max_size=GRADGRAD_MAX_SIZE), label="sample")
    battery("gradgradcheck", spec, sample, data)


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_hessian_is_symmetric_through_a_zero_scale(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    if spec.no_gradgrad:
        pytest.skip(spec.no_gradgrad)
    battery("hessian symmetry", spec, data.draw(spec.samples("float64", grad=True), label="sample"), data)


# ---------------------------------------------------------------------------
# (d) non-contiguous inputs, upstream gradients and tangents
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_noncontiguous_inputs_upstream_and_tangents(name: str, data: Any) -> None:
    spec = spec_for(name)
    sample = data.draw(spec.samples("float64", grad=not spec.forward_only), label="sample")
    battery("noncontiguous", spec, sample, data, differentiate=not spec.forward_only)


# ---------------------------------------------------------------------------
# (e) float32 stays float32
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_float32_stays_float32(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    sample = data.draw(spec.samples(np.float32, grad=True), label="sample")
    # the dtype the spec declares (check_op holds the op to its reference's: this holds both)
    out = apply(sample.op, *[from_numpy(v) if isinstance(v, np.ndarray) else v for v in sample.inputs])
    assert out.dtype == spec.expected_dtype(sample, np.dtype(np.float32)), f"float32 inputs gave a {out.dtype} output"
    battery("float32", spec, sample, data)


# ---------------------------------------------------------------------------
# (f) no mutation, (g) no shared memory
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_no_mutation(name: str, data: Any) -> None:
    spec = spec_for(name)
    sample = data.draw(spec.samples("float64", grad=not spec.forward_only), label="sample")
    battery("no mutation", spec, sample, data, differentiate=not spec.forward_only)


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_no_shared_memory(name: str, data: Any) -> None:
    spec = grad_spec_for(name)
    battery("no aliasing", spec, data.draw(spec.samples("float64", grad=True), label="sample"), data)


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
