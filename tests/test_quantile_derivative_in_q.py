"""A linear quantile moves with ``q``: between its two order statistics ``a <= b`` at position
``pos = q * (n - 1)`` it is ``a + (b - a) * (pos - floor(pos))``, so its derivative in ``q`` is
``(b - a) * (n - 1)``.  ``quantile``/``nanquantile`` read a tensor ``q`` as plain numbers, and gave it no
gradient and no tangent (PyTorch's, a ``lerp`` of the picks, gives both).  Found running PyTorch's
OpInfo samples through ``mg.func``'s vjp, jvp, vmap(vjp) and jvp(vjp) against ``torch.func``: every
quantile sample with ``q`` a tensor differed.  References here: central differences, and the
closed form above; the step methods (``lower``, ``higher``, ``nearest``, ``midpoint``) stay flat in ``q``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = np.array([[3.0, -1.0, 4.0, 1.5, -5.0], [9.0, 2.0, -6.0, 5.0, 3.5]])
Q = np.array([0.23, 0.61, 0.9])


def _call(name, x, q, **kw):
    return getattr(mg, name)(x, q, dim=1, **kw)


def _central(name, q, h=1e-6, **kw):
    """d/dq of the sum of each quantile weighted by W, by central differences, one q at a time."""
    w = np.arange(1.0, 1.0 + len(q) * 2).reshape(len(q), 2)
    out = np.zeros_like(q)
    for i in range(len(q)):
        up, down = q.copy(), q.copy()
        up[i] += h
        down[i] -= h
        f = [(_call(name, mg.tensor(X), mg.tensor(v), **kw).numpy() * w).sum() for v in (up, down)]
        out[i] = (f[0] - f[1]) / (2 * h)
    return w, out


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_the_gradient_and_the_tangent_in_q_are_the_slope_of_the_interpolation(name):
    w, expected = _central(name, Q)
    x = mg.tensor(X)
    q = mg.tensor(Q, requires_grad=True)
    (_call(name, x, q) * mg.tensor(w)).sum().backward()
    np.testing.assert_allclose(q.grad.numpy(), expected, rtol=1e-7)
    gq = mg.func.vjp(lambda q: _call(name, x, q), mg.tensor(Q))[1](mg.tensor(w))
    np.testing.assert_allclose(gq[0].numpy(), expected, rtol=1e-7)
    tangent = np.array([1.0, -2.0, 0.5])
    _, jq = mg.func.jvp(lambda q: (_call(name, x, q) * mg.tensor(w)).sum(), (mg.tensor(Q),), (mg.tensor(tangent),))
    np.testing.assert_allclose(jq.item(), expected @ tangent, rtol=1e-7)


def test_the_closed_form_for_a_number_q_tensor_and_nans_skipped():
    x = mg.tensor([2.0, float("nan"), -1.0, 7.0])  # nanquantile sees [-1, 2, 7]: n - 1 = 2
    q = mg.tensor(0.3, requires_grad=True)  # pos 0.6, between -1 and 2
    mg.nanquantile(x, q).backward()
    assert q.grad.item() == pytest.approx((2.0 - -1.0) * 2)
    y = mg.tensor([2.0, -1.0, 7.0, 0.0])  # quantile: n - 1 = 3; pos 0.9, between -1 and 0
    q = mg.tensor(0.3, requires_grad=True)
    mg.quantile(y, q).backward()
    assert q.grad.item() == pytest.approx((0.0 - -1.0) * 3)


@pytest.mark.parametrize("method", ["lower", "higher", "nearest", "midpoint"])
def test_the_step_methods_are_flat_in_q(method):
    x, q = mg.tensor(X, requires_grad=True), mg.tensor(Q, requires_grad=True)
    _call("quantile", x, q, interpolation=method).sum().backward()
    assert q.grad is None or not q.grad.numpy().any()
    assert x.grad.numpy().any()


def test_per_example_gradients_in_q_under_vmap_match_a_loop():
    qs = mg.tensor([[0.1, 0.55], [0.45, 0.99], [0.7, 0.2]], dtype=mg.float64)

    def grad_q(q):
        return mg.func.grad(lambda q: mg.quantile(mg.tensor(X), q, dim=1).sum())(q)

    batched = mg.func.vmap(grad_q)(qs)
    looped = np.stack([grad_q(qs[i]).numpy() for i in range(3)])
    np.testing.assert_allclose(batched.numpy(), looped, rtol=1e-12)
    assert np.abs(looped).min() > 0
