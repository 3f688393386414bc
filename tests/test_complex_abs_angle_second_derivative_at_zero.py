"""The second derivatives of ``abs`` and ``angle`` of a complex number at the origin are 0.

Their first derivatives there are the subgradient 0 (PyTorch's, and ``sgn(0) = 0``'s).  The
backward was built as ``Re z / r`` with ``r`` replaced by 1 at the origin, so differentiating
it again (``create_graph=True``, forward-over-reverse, forward-over-forward) gave ``1`` per
direction there: ``abs``'s reverse-over-reverse at 0 came out ``conj(w)`` for a weight ``w``
where PyTorch's is 0.  The numbers below are torch 2.13's, at ``z = [0, 1+1j, -2+0.5j]``
(PyTorch's reverse-over-reverse of ``angle`` at 0 is NaN; the other two modes give 0 there).
"""

import numpy as np

import minigrad_ckpt as mg

Z = np.array([0j, 1 + 1j, -2 + 0.5j])
W = np.array([1 + 2j, 1 - 1j, 0.5j])
T = np.array([0.5 - 1j, 2 + 0j, 1j])

TORCH = {  # (reverse-over-reverse, forward-over-reverse, forward-over-forward)
    "abs": ([0, 0, -0.0570672059 - 0.2282688235j],
            [0, 0.7071067812 - 0.7071067812j, 0.1141344117 + 0.4565376470j],
            [0, 1.4142135624, 0.4565376470]),
    "angle": ([0, 0.5 - 0.5j, 0.1038062284 - 0.0553633218j],
              [0, 1, -0.2076124567 + 0.1107266436j],
              [0, 2, 0.1107266436]),
}


def _first(fn):
    return mg.func.grad(lambda z: getattr(z, fn)().sum())


def test_reverse_over_reverse_is_zero_at_the_origin():
    for fn, (expected, _, _) in TORCH.items():
        z = mg.tensor(Z, requires_grad=True)
        g, = mg.autograd.grad(getattr(z, fn)().sum(), z, create_graph=True)
        h, = mg.autograd.grad((g * mg.tensor(W)).real.sum(), z)
        np.testing.assert_allclose(h.numpy(), expected, atol=1e-9, err_msg=fn)


def test_forward_over_reverse_is_zero_at_the_origin():
    for fn, (_, expected, _) in TORCH.items():
        _, tangent = mg.func.jvp(_first(fn), (mg.tensor(Z),), (mg.tensor(T),))
        np.testing.assert_allclose(tangent.numpy(), expected, atol=1e-9, err_msg=fn)


def test_forward_over_forward_is_zero_at_the_origin():
    for fn, (_, _, expected) in TORCH.items():
        def derivative(z, fn=fn):
            return mg.func.jvp(lambda q: getattr(q, fn)(), (z,), (mg.tensor(T),))[1]
        _, tangent = mg.func.jvp(derivative, (mg.tensor(Z),), (mg.tensor(T),))
        np.testing.assert_allclose(tangent.numpy(), expected, atol=1e-9, err_msg=fn)


def test_first_derivatives_unchanged():
    z = mg.tensor(Z, requires_grad=True)
    (z.abs().sum() + z.angle().sum()).backward()
    expected = np.array([0, (1 + 1j) / np.sqrt(2) + (-1 + 1j) / 2, (-2 + 0.5j) / np.hypot(2, 0.5)
                         + 1j * (-2 + 0.5j) / 4.25])
    np.testing.assert_allclose(z.grad.numpy(), expected, atol=1e-12)
