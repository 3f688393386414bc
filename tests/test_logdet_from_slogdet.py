"""``mg.logdet`` is computed from ``slogdet``, as ``torch.logdet``: it was ``log(det(A))``, and the
determinant over- or underflows long before its logarithm does -- for ``A = 10 Q Q^T`` (60 x 60,
float32) ``det`` is inf, so ``logdet`` was inf with a NaN gradient where torch 2.13 gives
138.155 (``60 log 10``) and the gradient ``A^-T``.  At a negative determinant the value stays
NaN, and the gradient is 0 there, as PyTorch's (it was ``A^-T``).  Exact references:
``n log(scale)`` and ``A^-T``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.checkpoint import checkpoint

Q, _ = np.linalg.qr(np.random.default_rng(4).standard_normal((60, 60)))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype, scale", [(mg.float32, 10.0), (mg.float32, 0.1), (mg.float64, 1e-6), (mg.float64, 1e7)])
def test_logdet_does_not_overflow_with_the_determinant(dtype, scale, device):
    a = (Q * scale) @ Q.T
    tol = 1e-4 if dtype == mg.float32 else 1e-9
    want_grad = np.linalg.inv(a).T
    x = mg.tensor(a, dtype=dtype, device=device, requires_grad=True)
    out = mg.logdet(x)
    np.testing.assert_allclose(out.item(), 60 * np.log(scale), rtol=tol)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=tol, atol=tol * np.abs(want_grad).max())
    y = mg.tensor(a, dtype=dtype, device=device, requires_grad=True)
    checkpoint(mg.logdet, y, use_reentrant=False).backward()
    np.testing.assert_allclose(y.grad.numpy(), x.grad.numpy())
    _, tangent = mg.func.jvp(mg.logdet, (mg.tensor(a, dtype=dtype, device=device),),
                             (mg.tensor(np.eye(60), dtype=dtype, device=device),))
    np.testing.assert_allclose(tangent.item(), 60 / scale, rtol=tol)


def test_a_negative_determinant_is_nan_and_sends_no_gradient():
    spd = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = mg.tensor(np.stack([spd, np.diag([2.0, -3.0])]), requires_grad=True)
    out = mg.logdet(x)
    assert np.isfinite(out[0].item()) and np.isnan(out[1].item())
    out.sum().backward()  # torch 2.13: x.grad[1] is 0
    np.testing.assert_allclose(x.grad.numpy()[0], np.linalg.inv(spd).T)
    assert (x.grad.numpy()[1] == 0).all()


def test_a_complex_logdet_is_log_of_the_determinant():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3))
    x = mg.tensor(a, requires_grad=True)
    out = mg.logdet(x)
    np.testing.assert_allclose(np.exp(out.detach().numpy()), np.linalg.det(a), rtol=1e-12)
    (out.real + out.imag).sum().backward()
    # L = Re f + Im f of the holomorphic f = log det, f' = A^-T: PyTorch's z.grad is (1 + i) conj(A^-T)
    np.testing.assert_allclose(x.grad.numpy(), (1 + 1j) * np.conj(np.swapaxes(np.linalg.inv(a), -1, -2)), rtol=1e-10)
