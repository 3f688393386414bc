"""Random programs of in-place writes and custom Functions under ``mg.func``, against central differences.

``tests/test_func_random_programs.py`` nests transforms over a body of elementwise ops with one write
into a fresh buffer.  The bodies here are what that generator lacks: writes into views of
intermediates (``b[1:].mul_``, a transpose's row, a diagonal), ``setitem`` with index tensors,
``index_put_`` (with and without ``accumulate``), ``masked_fill_``, ``copy_`` into slices,
``scatter_``, ``addcmul_``, writes into a custom Function's output, and custom Functions of both
styles (``setup_context`` with ``save_for_forward`` and a ``jvp``; the older ``forward(ctx, ...)``;
two outputs with ``set_materialize_grads(False)`` and a non-differentiable index), ``vmap`` inside the
body, all closing over a tensor ``w`` that may require grad.  The body runs under one transform or a
nested pair (or inside ``mg.checkpoint``), on the CPU and the strict device; the result must equal
float64 central differences of the plain body, and the closed-over ``w``, when it requires grad, must
get the gradient of the transform's result (the captured tensor is still on the outer graph).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
import func_programs as fp  # noqa: E402

sys.path.remove(str(DATA))
from func_custom_functions import (  # noqa: E402 -- tests/func_custom_functions.py
    ExpSetupContext,
    IdentitySetupContext,
    Mul,
    OldSin,
    Shifted,
    Split,
    SquareAndExp,
)

N = 4
TOL = dict(rtol=2e-5, atol=2e-6)


def _fresh(z):
    return z.clone()


def _step(name: str, z, w):
    dev, dt = z.device, z.dtype
    idx = lambda *i: mg.tensor(list(i), device=dev)  # noqa: E731
    if name == "exp":
        return ExpSetupContext.apply(z * 0.5)
    if name == "mul":
        return Mul.apply(z, w) + z
    if name == "old_sin":
        return OldSin.apply(z) + 0.5 * z
    if name == "split":
        double, sine, _ = Split.apply(z * w)
        return double * 0.3 + sine * sine
    if name == "split_one":  # only one output reaches the loss: backward gets None for the other
        return Split.apply(z * w)[1] ** 2 + z
    if name == "identity_write":  # a write into what a Function handed out of a fresh tensor
        b = IdentitySetupContext.apply(z * 1.0)
        b[1:].mul_(z[:-1])
        return Shifted.apply(b) * z
    if name == "write_other_output":  # a write into the output backward does not read
        square, e = SquareAndExp.apply(z * 0.5)
        square[1:].mul_(w[:-1])
        return square + e
    b = _fresh(z)
    if name == "view_mul":
        b[1:].mul_(z[:-1])
    elif name == "transpose_add":
        b = b.reshape(2, 2)
        b.t()[0].add_(w[:2] * z[2:])
        b = b.reshape(N)
    elif name == "setitem":
        b[idx(0, 2)] = z[idx(1, 3)] * w[0]
    elif name == "index_put":
        b.index_put_((idx(3, 1),), z[:2].sin())
    elif name == "index_put_accumulate":
        b.index_put_((idx(0, 0, 2),), z[1:] * w[1:], accumulate=True)
    elif name == "masked_fill":
        b.masked_fill_(mg.tensor([True, False, False, True], device=dev), 0.25)
        b = b * z
    elif name == "copy_slices":
        b = mg.zeros(N, dtype=dt, device=dev)
        b[:2].copy_(z[2:])
        b[2:].copy_(z[:2].tanh())
        b = b + z * w
    elif name == "diagonal":
        m = mg.zeros(N, N, dtype=dt, device=dev)
        m.diagonal().copy_(z)
        m[0].add_(z * w)
        b = m.sum(0) + m[:, 1]
    elif name == "scatter":
        b.scatter_(0, idx(2, 0), z.flip(0)[:2] * 0.5)
    elif name == "addcmul":
        b[1:3].addcmul_(z[:2], w[2:], value=0.5)
    elif name == "write_custom_output":
        b = ExpSetupContext.apply(z * 0.5)
        b.mul_(z)
    elif name == "index_add":
        b.index_add_(0, idx(1, 1, 3), z[:3] * w[:3], alpha=0.5)
    elif name == "index_copy":
        b.index_copy_(0, idx(2, 0), z[1:3].exp())
    elif name == "masked_scatter":
        b.masked_scatter_(mg.tensor([False, True, True, False], device=dev), z[2:] * z[:2])
    elif name == "bool_setitem":
        mask = mg.tensor([True, False, True, True], device=dev)
        b[mask] = z[mask] * w[mask] + 1.0
    elif name == "broadcast_copy":
        b[1:].copy_(z[0] * w[0])
        b = b * z
    elif name == "strided_view":
        b.unsqueeze(0)[0, ::2].sub_(z[1::2].sin())
    elif name == "vmap_inside":
        b = mg.func.vmap(lambda r: OldSin.apply(r) * w[0] + ExpSetupContext.apply(r))(z.reshape(2, 2)).reshape(N)
    return b


STEPS = ["exp", "mul", "old_sin", "split", "split_one", "view_mul", "transpose_add", "setitem", "index_put",
         "index_put_accumulate", "masked_fill", "copy_slices", "diagonal", "scatter", "addcmul",
         "write_custom_output", "vmap_inside", "identity_write", "index_add", "index_copy", "masked_scatter",
         "bool_setitem", "broadcast_copy", "strided_view", "write_other_output"]


def body(steps, w, checkpointed: bool):
    def run(z):
        for name in steps:
            z = _step(name, z, w)
        return z

    if not checkpointed:
        return run
    return lambda z: mg.checkpoint.checkpoint(run, z, use_reentrant=False)


def transformed(kind: str, f, x, u, v):
    """The derivative ``kind`` of ``f`` at ``x`` (vectors ``u``, ``v`` for the scalar and the direction)."""
    fu = mg.func
    scalar = lambda z: (f(z) * u).sum()  # noqa: E731
    if kind == "grad":
        return fu.grad(scalar)(x)
    if kind == "vjp":
        return fu.vjp(f, x)[1](u)[0]
    if kind in ("jacrev", "jacfwd"):
        return getattr(fu, kind)(f)(x)
    if kind == "jvp":
        return fu.jvp(f, (x,), (v,))[1]
    if kind == "linearize":
        return fu.linearize(f, x)[1](v)
    if kind == "hessian":
        return fu.hessian(scalar)(x) @ v
    if kind == "jacfwd_jacrev":
        return fu.jacfwd(fu.jacrev(scalar))(x) @ v
    if kind == "grad_of_jvp":
        return fu.grad(lambda z: (fu.jvp(f, (z,), (v,))[1] * u).sum())(x)
    if kind == "grad_of_grad":
        return fu.grad(lambda z: (fu.grad(scalar)(z) * v).sum())(x)
    if kind == "vmap_grad":
        return fu.vmap(fu.grad(scalar))(mg.stack([x, x * 0.5]))
    if kind == "vmap_jvp":
        return fu.vmap(lambda z: fu.jvp(f, (z,), (v,))[1])(mg.stack([x, x * 0.5]))
    raise AssertionError(kind)


KINDS = ["grad", "vjp", "jacrev", "jacfwd", "jvp", "linearize", "hessian", "jacfwd_jacrev", "grad_of_jvp",
         "grad_of_grad", "vmap_grad", "vmap_jvp"]


def expected(kind: str, value, x: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """What :func:`transformed` must give, from central differences of ``value`` (NumPy in and out)."""
    if kind in ("hessian", "jacfwd_jacrev", "grad_of_jvp", "grad_of_grad"):
        return fp.hessian_by_differences(lambda b: value(b) @ u, x) @ v
    if kind == "vmap_grad":
        return np.stack([u @ fp.central(value, p, 1e-6) for p in (x, x * 0.5)])
    if kind == "vmap_jvp":
        return np.stack([fp.central(value, p, 1e-6) @ v for p in (x, x * 0.5)])
    J = fp.central(value, x, 1e-6)
    if kind in ("jacrev", "jacfwd"):
        return J
    if kind in ("jvp", "linearize"):
        return J @ v
    return u @ J


@st.composite
def programs(draw) -> dict:
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    vec = lambda scale=1.0: (rng.standard_normal(N) * scale).round(3)  # noqa: E731
    return {"steps": draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=3)),
            "kind": draw(st.sampled_from(KINDS)), "checkpoint": draw(st.booleans()),
            "w_grad": draw(st.booleans()), "device": draw(st.sampled_from(["cpu", "strict"])),
            "x": vec(0.8), "w": vec(0.7), "u": vec(), "v": vec(), "c": vec()}


def check(spec: dict) -> None:
    dev = spec["device"]
    const = lambda a: mg.tensor(np.asarray(a, dtype=np.float64), device=dev)  # noqa: E731

    def run(xn, wn, w_grad=False):
        w = const(wn).requires_grad_(w_grad)
        f = body(spec["steps"], w, spec["checkpoint"])
        return f, w

    f, w = run(spec["x"], spec["w"], spec["w_grad"])
    got = transformed(spec["kind"], f, const(spec["x"]), const(spec["u"]), const(spec["v"]))
    value = lambda xn: run(xn, spec["w"])[0](const(xn)).numpy()  # noqa: E731
    want = expected(spec["kind"], value, np.asarray(spec["x"]), np.asarray(spec["u"]), np.asarray(spec["v"]))
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=TOL["rtol"], atol=TOL["atol"] * scale,
                               err_msg=f"program {spec}")
    if not spec["w_grad"]:
        return
    c = const(np.resize(spec["c"], got.shape))
    # a result that does not depend on w is off w's graph (torch.autograd.grad refuses it too)
    got_w = mg.autograd.grad((got * c).sum(), w)[0] if got.requires_grad else mg.zeros(N, dtype=mg.float64)

    def result_at(wn):
        f, _ = run(spec["x"], wn)
        r = transformed(spec["kind"], f, const(spec["x"]), const(spec["u"]), const(spec["v"]))
        return (r.detach().numpy() * c.numpy()).sum()

    want_w = fp.central(result_at, np.asarray(spec["w"], dtype=np.float64), 1e-6)
    np.testing.assert_allclose(got_w.cpu().numpy(), want_w, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(want_w).max()),
                               err_msg=f"d/dw of program {spec}")


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_write_programs_match_central_differences(spec):
    check(spec)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("step", STEPS)
def test_each_step_under_each_transform(step, kind):
    rng = np.random.default_rng(7)
    vec = lambda scale=1.0: (rng.standard_normal(N) * scale).round(3)  # noqa: E731
    check({"steps": [step], "kind": kind, "checkpoint": False, "w_grad": True, "device": "cpu",
           "x": vec(0.8), "w": vec(0.7), "u": vec(), "v": vec(), "c": vec()})
