"""PyTorch's older top-level linalg spellings (``torch.svd``, ``torch.qr``, ``torch.cholesky``,
``torch.pinverse``) and small aliases (``ger``, ``trapz``, ``rsub``, ``igamma``), with their
meanings: ``svd`` gives ``V`` (not ``Vh``) -- the conjugate transpose for complex input --
and ``cholesky(upper=True)`` gives ``L^H``.  Fixtures made offline with torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3))


@pytest.mark.parametrize("make", [lambda: mg.tensor(A), lambda: mg.tensor(A.real)])
def test_svd_gives_v_and_reconstructs(make):
    # torch: U, S, V = torch.svd(a); torch.allclose(U @ torch.diag(S).to(a.dtype) @ V.mH, a) -> True
    a = make()
    for u, s, v in (mg.svd(a), a.svd()):
        assert np.allclose((u @ mg.diag(s).to(a.dtype) @ v.mH).numpy(), a.numpy())
    u, s, v = mg.svd(a, some=False)
    assert u.shape == (4, 4) and v.shape == (3, 3)
    u, s, v = mg.svd(a, compute_uv=False)  # torch: zero-filled (m, m) and (n, n)
    assert u.shape == (4, 4) and v.shape == (3, 3) and not u.numpy().any()
    assert np.allclose(s.numpy(), np.linalg.svd(A if a.dtype.kind == "c" else A.real, compute_uv=False))


def test_cholesky_upper_is_the_conjugate_transpose():
    # torch: U = torch.cholesky(m, upper=True); torch.allclose(U.mH @ U, m) -> True (m complex Hermitian)
    m = mg.tensor(A.conj().T @ A + np.eye(3))
    for upper in (mg.cholesky(m, upper=True), m.cholesky(upper=True)):
        assert np.allclose((upper.mH @ upper).numpy(), m.numpy())
    lower = mg.cholesky(m)
    assert np.allclose((lower @ lower.mH).numpy(), m.numpy())


def test_qr_pinverse_and_aliases():
    a = mg.tensor(A.real)
    q, r = mg.qr(a)
    assert q.shape == (4, 3) and np.allclose((q @ r).numpy(), A.real)
    assert mg.qr(a, some=False)[0].shape == (4, 4)
    assert np.allclose(mg.pinverse(a).numpy(), np.linalg.pinv(A.real))
    # torch.rsub(torch.tensor([1., 2.]), 5, alpha=2) -> [3., 1.]; torch.ger -> outer; torch.trapz([1, 2, 3]) -> 4
    assert mg.rsub(mg.tensor([1.0, 2.0]), 5, alpha=2).tolist() == [3.0, 1.0]
    assert mg.ger(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])).tolist() == [[3.0, 4.0], [6.0, 8.0]]
    assert mg.trapz(mg.tensor([1.0, 2.0, 3.0])).item() == 4.0
    # torch.igamma(torch.tensor([1.], dtype=torch.float64), torch.tensor([2.], dtype=torch.float64)) -> 1 - e^-2
    x = mg.tensor([1.0], dtype=mg.float64)
    assert mg.igamma(x, 2 * x).item() == pytest.approx(1 - np.exp(-2), rel=1e-14)
    assert mg.igammac(x, 2 * x).item() == pytest.approx(np.exp(-2), rel=1e-14)


def test_gradients_through_the_complex_svd_and_cholesky():
    z = mg.tensor(A[:3, :2], requires_grad=True)
    assert mg.autograd.gradcheck(lambda t: mg.svd(t)[1], (z,))
    assert mg.autograd.gradcheck(lambda t: mg.cholesky(t.mH @ t + mg.eye(2), upper=True), (z,))


def test_nn_functions_at_the_top_level_as_pytorchs():
    # torch.conv2d, torch.selu, torch.threshold, torch.pdist, ... are the nn.functional functions (same signatures);
    # they were AttributeErrors here
    F = mg.nn.functional
    for name in ("bilinear", "celu", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
                 "prelu", "rrelu", "selu"):
        assert getattr(mg, name) is getattr(F, name), name
    for name in ("hardshrink", "threshold"):  # torch.hardshrink and torch.threshold take out=, F's do not
        assert getattr(mg, name).__wrapped__ is getattr(F, name), name
    x = mg.arange(8.0).reshape(1, 2, 2, 2)
    w = mg.ones(1, 2, 1, 1)
    assert mg.conv2d(x, w).tolist() == [[[[4.0, 6.0], [8.0, 10.0]]]]
    assert mg.threshold(mg.tensor([0.5, 2.0]), 1.0, -1.0).tolist() == [-1.0, 2.0]
