"""``mg.func.linearize`` equals ``mg.func.jvp`` where its tape cannot stand for forward mode.

``linearize`` records its function once and differentiates the recorded backward pass again for
each tangent.  Two things forward mode sees and the tape does not: a ``no_grad`` block (forward
mode differentiates through it, as PyTorch's does -- the tangent through it was dropped silently:
``[1, 1, 1]`` for jvp's ``[3, 3, 3]``), and a value an op saved written in place afterwards (the
backward pass refuses it, forward mode does not).  There ``jvp_fn`` runs forward mode itself, on
the primals as they were and from the random state the function started in, leaving no trace.
Expected values are torch 2.13's ``torch.func.jvp`` (made offline)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _through_no_grad(a):
    with mg.no_grad():
        s = (a * a).sum()
    return a * s + a.sin()


def _saved_output_written(a):
    b = a.clone()
    b.tanh_()
    b[1:].mul_(2)
    return b


TORCH = {  # torch.func.jvp at x = [0.5, -1, 2], v = [1, 2, -1]
    _through_no_grad: [2.6275825618903728, 18.58060461173628, -18.833853163452858],
    _saved_output_written: [0.7864477329659274, 1.6798973664561045, -0.14130164970632886],
}


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("f", list(TORCH), ids=lambda f: f.__name__)
def test_linearize_equals_jvp_where_the_tape_cannot_stand_for_forward_mode(f, device, dtype):
    x = mg.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device)
    v = mg.tensor([1.0, 2.0, -1.0], dtype=dtype, device=device)
    out, jvp_fn = mg.func.linearize(f, x)
    want_out, want = mg.func.jvp(f, (x,), (v,))
    for _ in range(2):  # (each call alike)
        got = jvp_fn(v)
        assert np.array_equal(mg.backend.to_host(got._data), mg.backend.to_host(want._data))
    assert np.array_equal(mg.backend.to_host(out._data), mg.backend.to_host(want_out._data))
    tol = 1e-12 if dtype == mg.float64 else 1e-5
    assert np.allclose(mg.backend.to_host(got._data), TORCH[f], rtol=tol, atol=tol)


def test_a_rerun_starts_where_the_function_did_and_leaves_no_trace():
    """Dropout draws the same mask as the recorded call, BatchNorm's running statistics are those
    of the one call, a write into the argument happens once, and the generator goes on from where
    the recorded call left it."""
    mg.manual_seed(0)
    bn = mg.nn.BatchNorm1d(3)
    drop = mg.nn.Dropout(0.5)

    def f(a):
        a.mul_(2)  # a write into the argument: once, by the recorded call
        return drop(bn(a)).tanh()

    x = mg.randn(4, 3, dtype=mg.float64)
    bn.double()
    x0 = x.clone()
    mg.manual_seed(1)
    out, jvp_fn = mg.func.linearize(f, x)
    stats = (bn.running_mean.clone(), bn.running_var.clone(), int(bn.num_batches_tracked))
    v = mg.randn(4, 3, dtype=mg.float64)
    after = mg.get_rng_state()
    got = [jvp_fn(v), jvp_fn(v)]
    drawn = mg.rand(5)
    mg.set_rng_state(after)
    assert np.array_equal(drawn.numpy(), mg.rand(5).numpy())  # the generator goes on as if jvp_fn had not run
    assert np.array_equal(x.numpy(), 2 * x0.numpy())
    assert np.array_equal(bn.running_mean.numpy(), stats[0].numpy())
    assert np.array_equal(bn.running_var.numpy(), stats[1].numpy())
    assert int(bn.num_batches_tracked) == stats[2]
    # the reference: jvp of the same call, from the same random state, on the argument as it was
    bn.running_mean.copy_(mg.zeros(3))
    bn.running_var.copy_(mg.ones(3))
    mg.manual_seed(1)
    want_out, want = mg.func.jvp(lambda a: f(a.clone()), (x0.clone(),), (v,))
    assert np.array_equal(out.detach().numpy(), want_out.numpy())
    for g in got:
        assert np.array_equal(g.numpy(), want.numpy())


def test_linearize_of_a_plain_function_still_runs_it_once():
    calls = []

    def f(a):
        calls.append(1)
        return (a * a).sin()

    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64)
    _, jvp_fn = mg.func.linearize(f, x)
    v = mg.ones(3, dtype=mg.float64)
    got = jvp_fn(v)
    assert len(calls) == 1
    assert np.allclose(got.numpy(), (2 * x * (x * x).cos()).numpy(), rtol=1e-15)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_closed_over_weight_gets_the_gradient_of_the_rerun_tangent(device, dtype):
    """The rerun's own values -- those it wrote in place included -- stay as its tape saved them:
    a gradient through ``jvp_fn``'s result to a weight the function closes over is jvp's."""
    w = mg.tensor([0.3, -0.7, 1.1], dtype=dtype, device=device, requires_grad=True)

    def f(a):
        with mg.no_grad():  # the tape cannot serve: jvp_fn reruns
            s = (a * a).sum()
        b = a * w
        b[1:].add_(s * a[1:])  # memory the rerun made, written in place: its tape saves the new values
        return b.sin() * w

    x = mg.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device)
    v = mg.tensor([1.0, 2.0, -1.0], dtype=dtype, device=device)
    got = mg.func.linearize(f, x)[1](v)
    want = mg.func.jvp(f, (x,), (v,))[1]
    (gw,) = mg.autograd.grad(got.sum(), w)
    (ww,) = mg.autograd.grad(want.sum(), w)
    assert np.array_equal(mg.backend.to_host(gw._data), mg.backend.to_host(ww._data))


def _cube_with_a_switch(a):
    with mg.no_grad():  # (nothing in it: the switch alone sends jvp_fn to forward mode)
        pass
    return a ** 3


@pytest.mark.parametrize("outer", ["grad", "jacrev", "backward"])
def test_transforms_around_a_rerun_see_through_it(outer):
    """The rerun's primals keep their history: a transform around ``linearize`` differentiates
    ``J(x) t`` with respect to ``x`` as it does where the tape serves (6 x for x ** 3 and t = 1)."""
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    ones = mg.ones(3, dtype=mg.float64)

    def g(a):
        return mg.func.linearize(_cube_with_a_switch, a)[1](ones).sum()

    if outer == "grad":
        got = mg.func.grad(g)(x)
    elif outer == "jacrev":
        got = mg.func.jacrev(g)(x)
    else:
        leaf = x.clone().requires_grad_()
        g(leaf).backward()
        got = leaf.grad
    assert np.allclose(got.numpy(), 6 * x.numpy(), rtol=1e-15)


def test_a_rerun_draws_again_from_a_generator_the_function_was_handed():
    gen = mg.Generator().manual_seed(3)

    def f(a):
        with mg.no_grad():
            pass
        return a * mg.bernoulli(mg.full((8,), 0.5, dtype=mg.float64), generator=gen)

    x = mg.ones(8, dtype=mg.float64)
    out, jvp_fn = mg.func.linearize(f, x)
    after = gen.get_state()
    for _ in range(2):
        assert np.array_equal(jvp_fn(mg.ones(8, dtype=mg.float64)).numpy(), out.numpy())  # the same mask
        assert gen.get_state() == after


def test_a_rerun_checks_its_tangents_as_the_tape_path_does():
    def f(a, b):
        with mg.no_grad():
            pass
        return a * b

    x = mg.ones(2)
    _, jvp_fn = mg.func.linearize(f, x, x)
    with pytest.raises(RuntimeError, match="dtype float64 .* doesn't match the dtype float32"):
        jvp_fn(mg.ones(2, dtype=mg.float64), mg.ones(2))
    with pytest.raises(RuntimeError, match="jvp_fn: got 1 tangents for 2 primals"):
        jvp_fn(mg.ones(2))


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_checkpointed_function_with_a_switch_linearizes_as_jvp(device, dtype):
    """The rerun of a function checkpointed inside (``no_grad`` in the segment): jvp's tangent."""
    from minigrad_ckpt import checkpoint as ck

    def f(a):
        return ck.checkpoint(_through_no_grad, a).tanh()

    x = mg.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device)
    v = mg.tensor([1.0, 2.0, -1.0], dtype=dtype, device=device)
    got = mg.func.linearize(f, x)[1](v)
    want = mg.func.jvp(f, (x,), (v,))[1]
    assert np.array_equal(mg.backend.to_host(got._data), mg.backend.to_host(want._data))
