"""``mg.geqrf``, ``mg.orgqr`` and ``mg.ormqr`` (and the Tensor methods): LAPACK's QR as torch 2.13
offers it -- ``R`` and the Householder reflectors in one matrix, ``tau`` their scales -- compared
with torch's numbers (float64)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

A = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 1.0, 4.0], [-1.0, 0.5, 1.0]])

#: torch.geqrf(torch.tensor(A)) (torch 2.13)
GEQRF_A = [[-2.449489742783178, -0.20412414523193145, 0.816496580927726],
           [0.22474487139158905, -3.347884904433444, 0.5476094267474783],
           [0.0, 0.15321552062408023, -4.503715937875149],
           [-0.22474487139158905, 0.04920225080655015, 0.11828205388654593]]
GEQRF_TAU = [1.816496580927726, 1.949515621762832, 1.9724047862755782]


def test_geqrf_is_lapacks():
    a, tau = mg.geqrf(mg.tensor(A))
    assert np.allclose(a.numpy(), GEQRF_A, rtol=0, atol=1e-14) and np.allclose(tau.numpy(), GEQRF_TAU, atol=1e-14)
    assert type(mg.geqrf(mg.tensor(A))).__name__ == "geqrf" and mg.tensor(A).geqrf().tau.shape == (3,)
    q = mg.orgqr(a, tau)
    assert np.allclose((q @ a.triu()[:3]).numpy(), A, atol=1e-14)                              # A = QR
    assert mg.geqrf(mg.tensor(np.stack([A, 2 * A]))).a.shape == (2, 4, 3)


def test_ormqr_multiplies_by_the_whole_q_with_gradients():
    a, tau = mg.geqrf(mg.tensor(A))
    q = mg.ormqr(a, tau, mg.eye(4, dtype=mg.float64))
    assert np.allclose((q.T @ q).numpy(), np.eye(4), atol=1e-14) and np.allclose(q[:, :3].numpy(),
                                                                                  mg.orgqr(a, tau).numpy())
    c = mg.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
    assert np.allclose(mg.ormqr(a, tau, c, True, True).detach().numpy(), (q.T @ c).detach().numpy(), atol=1e-14)
    assert np.allclose(a.ormqr(tau, c.T, False).detach().numpy(), (c.T @ q).detach().numpy(), atol=1e-14)
    mg.ormqr(a, tau, c).sum().backward()
    assert np.allclose(c.grad.numpy(), np.repeat(q.sum(0).numpy()[:, None], 2, 1), atol=1e-14)


def test_refusals_are_pytorchs():
    with pytest.raises(RuntimeError, match="torch.geqrf: input must have at least 2 dimensions."):
        mg.geqrf(mg.zeros(3))
    with pytest.raises(NotImplementedError, match="\"geqrf_cpu\" not implemented for 'Long'"):
        mg.geqrf(mg.zeros(3, 3, dtype=mg.int64))
    with pytest.raises(RuntimeError, match=r"torch.ormqr: other.shape\[-2\] must be equal to input.shape\[-2\]"):
        mg.ormqr(mg.zeros(4, 3), mg.zeros(3), mg.zeros(3, 2))
    with pytest.raises(RuntimeError, match=r"torch.ormqr: other.shape\[-1\] must be equal to input.shape\[-2\]"):
        mg.ormqr(mg.zeros(4, 3), mg.zeros(3), mg.zeros(2, 3), False)
