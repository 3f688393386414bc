"""``mg.logcumsumexp`` of long rows: linear memory, exact values and gradients at any spread.

Each prefix used to be a ``logsumexp`` of the whole row under a lower-triangular mask -- n * n
elements a row: 20,000 float64 values held 3.2 GB at once and 1e5 could not run.  Rows longer than
a block are now done in blocks (``functional/selection.py``'s ``_prefix_logsumexp``).  The
references are computed here in long double from ``np.logaddexp.accumulate``.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minigrad_ckpt as mg

L = np.longdouble


def reference(a, g):
    out = np.logaddexp.accumulate(a.astype(L))
    grad = np.array([np.sum(g[j:].astype(L) * np.exp(a[j].astype(L) - out[j:])) for j in range(a.size)])
    return out, grad


@pytest.mark.parametrize("n", [64, 65, 130, 4097, 5000])
@pytest.mark.parametrize("spread", [1.0, 300.0])
def test_values_and_gradients_at_any_length_and_spread(n, spread):
    rng = np.random.default_rng(n)
    a, g = rng.standard_normal(n) * spread, rng.standard_normal(n)
    want, want_grad = reference(a, g)
    x = mg.tensor(a, requires_grad=True)
    y = mg.logcumsumexp(x, 0)
    y.backward(mg.tensor(g))
    np.testing.assert_allclose(y.detach().numpy(), want.astype(float), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), want_grad.astype(float), rtol=1e-11, atol=1e-300)


def test_a_long_row_of_minus_infinities_passes_gradient_zero_and_keeps_its_shape():
    a = np.full((2, 3, 200), -np.inf)
    a[1, :, 150:] = np.arange(50.0)
    x = mg.tensor(a, requires_grad=True)
    y = mg.logcumsumexp(x, 2)
    assert y.shape == (2, 3, 200)
    assert np.isneginf(y.detach().numpy()[0]).all() and np.isneginf(y.detach().numpy()[1, :, :150]).all()
    y[1].sum().backward()
    assert np.isfinite(x.grad.numpy()).all() and (x.grad.numpy()[0] == 0).all()


def test_another_dim_and_second_derivatives_of_a_blocked_row():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((70, 2))  # dim 0 is longer than a block
    assert mg.autograd.gradcheck(lambda t: mg.logcumsumexp(t, 0), (mg.tensor(a, requires_grad=True),))
    assert mg.autograd.gradgradcheck(lambda t: mg.logcumsumexp(t, 0), (mg.tensor(a, requires_grad=True),))


def test_a_long_row_holds_memory_linear_in_its_length():
    x = mg.tensor(np.random.default_rng(0).standard_normal(20_000))
    tracemalloc.start()
    try:
        mg.logcumsumexp(x, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, f"{peak / 1e6:.0f} MB for a row of 20,000"


def test_a_blocked_row_under_checkpoint_vmap_and_forward_mode():
    from minigrad_ckpt import func as F

    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 150))
    g = mg.tensor(rng.standard_normal((3, 150)))

    def grads(checkpointed):
        x = mg.tensor(a, requires_grad=True)
        y = mg.checkpoint.checkpoint(mg.logcumsumexp, x, 1, use_reentrant=False) if checkpointed else \
            mg.logcumsumexp(x, 1)
        y.backward(g)
        return x.grad.numpy()

    np.testing.assert_array_equal(grads(True), grads(False))  # the replay is bitwise
    rows = F.vmap(lambda r: mg.logcumsumexp(r, 0))(mg.tensor(a))
    np.testing.assert_array_equal(rows.numpy(), mg.logcumsumexp(mg.tensor(a), 1).numpy())
    t = rng.standard_normal((3, 150))
    _, tangent = F.jvp(lambda x: mg.logcumsumexp(x, 1), (mg.tensor(a),), (mg.tensor(t),))
    _, pullback = F.vjp(lambda x: mg.logcumsumexp(x, 1), mg.tensor(a))
    # <J t, g> == <t, J^T g>
    assert float((tangent * g).sum()) == pytest.approx(float((mg.tensor(t) * pullback(g)[0]).sum()), rel=1e-12)


def test_a_float32_blocked_row_stays_float32_and_near_the_float64_answer():
    a = np.random.default_rng(8).standard_normal(3000).astype(np.float32) * 20
    y = mg.logcumsumexp(mg.tensor(a), 0)
    assert y.dtype == mg.float32
    want = np.logaddexp.accumulate(a.astype(np.float64))
    np.testing.assert_allclose(y.numpy(), want, rtol=2e-6)
