"""A ``vjp_fn`` (or ``linearize``'s ``jvp_fn``) made earlier, called inside another transform.

``vjp_fn(u)`` is ``J^T u``: linear in ``u``, so a transform taken with respect to
``u`` sees the matrix ``J^T`` (``grad(lambda u: vjp_fn(u)[0].sum())`` is ``J @ 1``).
The pullback runs the backward pass of a tape recorded before the outer
transform opened; what the outer transform made -- its argument handles, the
ops it ran on them -- must count as *outside* that recording, or the pass is
not recorded and its result is cut off from ``u`` (the derivative came out 0).
PyTorch's ``test_grad_of_vjp_composition`` and ``test_grad_of_vjp_of_grad_composition``
(test/functorch/test_eager_transforms.py) are the first two rows.  Each expected value here
is written by hand: ``f = sin`` elementwise, so ``J = diag(cos x)``.
"""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

X = np.array([0.5, 1.0, -0.3])
U = np.array([2.0, 3.0, -1.5])


def t64(values):
    return mg.tensor(np.asarray(values, dtype=np.float64))


def _pullback():
    return F.vjp(mg.sin, t64(X))[1]


def _pullback_of_a_grad():  # vjp of grad(-cos) = sin: the same J
    return F.vjp(F.grad(lambda x: -mg.cos(x).sum()), t64(X))[1]


def _linearized():  # J @ t, the tape's backward differentiated once more
    return F.linearize(mg.sin, t64(X))[1]


def _apply(make):
    fn = make()
    return (lambda u: fn(u)[0]) if make is not _linearized else fn


COS = np.cos(X)
CASES = {
    "grad of vjp_fn": (lambda g: F.grad(lambda u: g(u).sum())(t64(U)), COS),
    "grad of vjp_fn of a value computed from u": (lambda g: F.grad(lambda u: g(u * u).sum())(t64(U)),
                                                  2 * U * COS),
    "jacrev of vjp_fn": (lambda g: F.jacrev(g)(t64(U)), np.diag(COS)),
    "vjp of vjp_fn": (lambda g: F.vjp(g, t64(U))[1](t64(np.ones(3)))[0], COS),
    "vmap of grad of vjp_fn": (lambda g: F.vmap(F.grad(lambda u: g(u).sum()))(t64(np.stack([U, -U]))),
                               np.stack([COS, COS])),
    "jacfwd of grad of vjp_fn (forward over the pullback)": (
        lambda g: F.jacfwd(F.grad(lambda u: (g(u) ** 2).sum()))(t64(U)), np.diag(2 * COS ** 2)),
    "jvp of vjp_fn": (lambda g: F.jvp(g, (t64(U),), (t64(np.ones(3)),))[1], COS),
}


@pytest.mark.parametrize("make", [_pullback, _pullback_of_a_grad, _linearized],
                         ids=["vjp", "vjp of grad", "linearize"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_pullback_is_differentiable_in_its_cotangent(make, name):
    run, want = CASES[name]
    got = run(_apply(make))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14, atol=1e-15)


def test_the_cotangent_keeps_its_history_under_plain_autograd_too():
    u = mg.tensor(U, dtype=mg.float64, requires_grad=True)
    g = _apply(_pullback)(u)
    (d,) = mg.autograd.grad(g.sum(), u)
    np.testing.assert_allclose(d.numpy(), COS, rtol=1e-14)


def test_a_pullback_under_grad_still_hands_out_plain_results_when_nothing_leads_outside():
    g = _apply(_pullback)(t64(U))
    assert not g.requires_grad and g.grad_fn is None
    np.testing.assert_allclose(g.numpy(), U * COS, rtol=1e-14)


def test_a_pullback_differentiated_again_and_again_keeps_nothing_per_call():
    """Each ``grad`` of ``vjp_fn`` records a pass on the vjp's tape, which the vjp must count as its own
    work.  That was a list of stamp ranges in the vjp's scope, one more per call and read whole at
    every node its walks met: after 2,400 calls a call took three times as long, and the list never
    shrinks."""
    vjp_fn = _pullback()
    outer = F.grad(lambda u: vjp_fn(u)[0].sum())
    for _ in range(20):  # (first calls fill caches)
        np.testing.assert_allclose(outer(t64(U)).numpy(), np.cos(X))
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(100):
            outer(t64(U))
        gc.collect()  # (each call's graph holds cycles: gone, but only at a collection)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 4_000, f"{grown} bytes kept by 100 calls"


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpointed"])
def test_a_pullback_differentiated_again_and_again_stays_exact(device, checkpointed):
    """The passes a pullback records are marked as its own on their nodes (not as stamp ranges in
    the scope): call after call, through a checkpointed function and on the strict device, each
    ``grad`` of ``vjp_fn`` is still ``J^T`` applied to ``u`` -- here ``f(x) = sin(x) * x``, so
    ``J = diag(cos(x) * x + sin(x))``, and ``grad(lambda u: (vjp_fn(u) ** 2).sum())`` is ``2 J^2 u``."""
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

    def f(x):
        return mg.sin(x) * x

    run = (lambda x: mg.checkpoint.checkpoint(f, x, use_reentrant=False)) if checkpointed else f
    x = mg.tensor(X, dtype=mg.float64, device=device)
    vjp_fn = F.vjp(run, x)[1]
    outer = F.grad(lambda u: (vjp_fn(u)[0] ** 2).sum())
    jac = np.cos(X) * X + np.sin(X)
    for k in range(5):
        u = U * (k + 1)
        got = outer(mg.tensor(u, dtype=mg.float64, device=device))
        np.testing.assert_allclose(got.cpu().numpy(), 2 * jac ** 2 * u, rtol=1e-13)
    under_vmap = F.vmap(outer)(mg.tensor(np.stack([U, -U]), dtype=mg.float64, device=device))
    np.testing.assert_allclose(under_vmap.cpu().numpy(), 2 * jac ** 2 * np.stack([U, -U]), rtol=1e-13)
