"""A running statistic that carries a forward-mode tangent takes the tangent of the whole update.

F.batch_norm and F.instance_norm differentiate the running statistics they are given (in evaluation
they are inputs like any other; PyTorch calls them non-differentiable).  In training they are updated
in place, ``new = (1 - m) * old + m * batch_stat``, and the update ran on the batch statistics as
plain arrays: a dual ``running_mean`` came out with the tangent ``(1 - m) * old_tangent`` -- half the
update's derivative, the batch's ``m * d(batch_stat)`` missing.  (torch 2.13 leaves the tangent as it
was, ``old_tangent``, for either op.)  The expected tangents here are the update's closed form,
``(1 - m) * t + m * mean(v)`` and ``(1 - m) * t + m * 2 / (n - 1) * sum((x - mean x) * (v - mean v))``,
and central differences agree with them.
"""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD
import minigrad_ckpt.nn.functional as F

M = 0.3
rng = np.random.default_rng(0)
X, V = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
RM, RV = np.array([0.2, -0.1, 0.4]), np.array([1.5, 0.7, 2.0])
RM_T, RV_T = np.array([1.0, 0.5, -2.0]), np.array([0.5, -0.25, 1.0])


def _expected(x, v, axis):
    n = x.shape[axis]
    dx, dv = x - x.mean(axis, keepdims=True), v - v.mean(axis, keepdims=True)
    mean_t = (1 - M) * RM_T + M * v.mean(axis)
    var_t = (1 - M) * RV_T + M * 2.0 / (n - 1) * (dx * dv).sum(axis)
    return mean_t, var_t


def _update(x, rm, rv):
    rm, rv = rm.clone(), rv.clone()
    F.batch_norm(x, rm, rv, training=True, momentum=M)
    return rm, rv


def test_batch_norm_update_moves_a_dual_running_mean_and_var():
    with fwAD.dual_level():
        rm = fwAD.make_dual(mg.tensor(RM), mg.tensor(RM_T))
        rv = fwAD.make_dual(mg.tensor(RV), mg.tensor(RV_T))
        F.batch_norm(fwAD.make_dual(mg.tensor(X), mg.tensor(V)), rm, rv, training=True, momentum=M)
        mean_t, var_t = fwAD.unpack_dual(rm).tangent, fwAD.unpack_dual(rv).tangent
    want_mean_t, want_var_t = _expected(X, V, 0)
    np.testing.assert_allclose(mean_t.numpy(), want_mean_t, rtol=1e-12)
    np.testing.assert_allclose(var_t.numpy(), want_var_t, rtol=1e-12)


def test_jvp_of_the_update_matches_central_differences():
    args = tuple(mg.tensor(a) for a in (X, RM, RV))
    tangents = tuple(mg.tensor(a) for a in (V, RM_T, RV_T))
    _, (mean_t, var_t) = mg.func.jvp(_update, args, tangents)
    eps = 1e-6
    plus = _update(*(a + eps * t for a, t in zip(args, tangents)))
    minus = _update(*(a - eps * t for a, t in zip(args, tangents)))
    for got, p, m in zip((mean_t, var_t), plus, minus):
        np.testing.assert_allclose(got.numpy(), ((p - m) / (2 * eps)).numpy(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(mean_t.numpy(), _expected(X, V, 0)[0], rtol=1e-12)


def test_instance_norm_update_moves_a_dual_running_mean_and_var():
    x, v = X.T[None].copy(), V.T[None].copy()  # (1, C=3, L=5): one sample, the statistics over L
    with fwAD.dual_level():
        rm = fwAD.make_dual(mg.tensor(RM), mg.tensor(RM_T))
        rv = fwAD.make_dual(mg.tensor(RV), mg.tensor(RV_T))
        F.instance_norm(fwAD.make_dual(mg.tensor(x), mg.tensor(v)), rm, rv, use_input_stats=True, momentum=M)
        mean_t, var_t = fwAD.unpack_dual(rm).tangent, fwAD.unpack_dual(rv).tangent
    want_mean_t, want_var_t = _expected(X, V, 0)
    np.testing.assert_allclose(mean_t.numpy(), want_mean_t, rtol=1e-12)
    np.testing.assert_allclose(var_t.numpy(), want_var_t, rtol=1e-12)


def test_a_modules_plain_buffers_still_get_no_tangent_under_jvp():
    bn = mg.nn.BatchNorm1d(3).double()
    out, out_t = mg.func.jvp(bn, (mg.tensor(X),), (mg.tensor(V),))
    with fwAD.dual_level():
        assert fwAD.unpack_dual(bn.running_mean).tangent is None
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * X.mean(0), rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * X.var(0, ddof=1), rtol=1e-12)
