"""``mg.linalg`` on complex matrices: eigh, svd, qr, cholesky, slogdet, eig, eigvals, norm.

The factorizations fix the phase of each eigen- and singular vector (its
largest-magnitude entry real and positive) and QR's ``R`` has a real
non-negative diagonal, so every output is a smooth function of the input and
its derivatives are checked *as returned*, against central differences (real
and imaginary parts perturbed separately), in reverse and forward mode and to
second order.  Agreement with PyTorch -- which keeps LAPACK's phases -- is in
``tests/test_complex_vs_torch.py`` (the ``cx_linalg_*`` cases), through
losses that do not depend on the phases.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck, gradgradcheck

L = mg.linalg
rng = np.random.default_rng(25)


def cplx(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def hpd(n):
    """A Hermitian positive-definite matrix."""
    a = cplx(n, n)
    return a @ a.conj().T + n * np.eye(n)


def leaf(a, **kw):
    return mg.tensor(a, requires_grad=True, **kw)


CASES = {
    "eigh": (lambda a: L.eigh(a), (3, 3)),
    "eigh_upper": (lambda a: L.eigh(a, UPLO="U"), (3, 3)),
    "eigh_batched": (lambda a: L.eigh(a).eigenvectors, (2, 3, 3)),
    "eigvalsh": (lambda a: L.eigvalsh(a), (4, 4)),
    "svd_tall": (lambda a: L.svd(a, full_matrices=False), (4, 3)),
    "svd_wide": (lambda a: L.svd(a, full_matrices=False), (2, 4)),
    "svd_batched": (lambda a: L.svd(a, full_matrices=False).Vh, (2, 3, 3)),
    "svdvals": (lambda a: L.svdvals(a), (3, 4)),
    "qr_tall": (lambda a: L.qr(a), (4, 3)),
    "qr_wide": (lambda a: L.qr(a), (3, 5)),
    "qr_batched": (lambda a: L.qr(a).R, (2, 3, 3)),
    "slogdet": (lambda a: L.slogdet(a), (3, 3)),
    "slogdet_batched": (lambda a: L.slogdet(a).sign, (2, 3, 3)),
    "eig": (lambda a: L.eig(a), (3, 3)),
    "eig_batched": (lambda a: L.eig(a).eigenvectors, (2, 3, 3)),
    "eigvals": (lambda a: L.eigvals(a), (4, 4)),
    "norm_2": (lambda a: L.norm(a, 2), (3, 4)),
    "norm_-2": (lambda a: L.norm(a, -2), (4, 3)),
    "norm_nuc": (lambda a: L.norm(a, "nuc"), (3, 4)),
    "det": (lambda a: L.det(a), (3, 3)),
    "inv": (lambda a: L.inv(a), (3, 3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_linalg_against_central_differences(name):
    fn, shape = CASES[name]
    x = leaf(cplx(*shape))
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("upper", [False, True])
def test_complex_cholesky_against_central_differences(upper):
    x = leaf(hpd(3))
    assert gradcheck(lambda a: L.cholesky(a, upper=upper), (x,))
    assert gradgradcheck(lambda a: L.cholesky(a, upper=upper), (x,))


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_of_a_real_matrix_is_complex_and_its_gradient_real(name):
    a = rng.standard_normal((4, 4))
    a[0, 1], a[1, 0] = 3.0, -3.0  # a complex pair
    x = leaf(a)
    fn = (lambda m: L.eig(m)) if name == "eig" else L.eigvals
    out = fn(x)
    w = out.eigenvalues if name == "eig" else out
    assert w.dtype == np.complex128 and np.any(np.abs(w.numpy().imag) > 1e-3)
    np.testing.assert_allclose(np.sort_complex(w.numpy()), np.sort_complex(np.linalg.eigvals(a)), atol=1e-12)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    (g,) = mg.grad((mg.abs(w) ** 2).sum(), [x])
    assert g.dtype == np.float64
    assert L.eig(mg.tensor(a, dtype="float32")).eigenvalues.dtype == np.complex64


def _largest_entries(v):
    idx = np.argmax(np.abs(v), axis=-2)[..., None, :]
    return np.take_along_axis(v, idx, axis=-2)


def test_factorizations_reconstruct_and_fix_the_phases():
    a = cplx(4, 3)
    u, s, vh = (t.numpy() for t in L.svd(mg.tensor(a), full_matrices=False))
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12)
    assert s.dtype == np.float64
    top = _largest_entries(u)
    np.testing.assert_allclose(top.imag, 0, atol=1e-15)
    assert np.all(top.real > 0)

    q, r = (t.numpy() for t in L.qr(mg.tensor(a)))
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    d = np.diagonal(r)
    assert np.all(d.imag == 0) and np.all(d.real >= 0)  # the rule: R's diagonal real, non-negative
    np.testing.assert_allclose(q.conj().T @ q, np.eye(3), atol=1e-12)

    h = hpd(4)
    w, v = (t.numpy() for t in L.eigh(mg.tensor(h)))
    assert w.dtype == np.float64
    np.testing.assert_allclose((v * w) @ v.conj().T, h, atol=1e-11)
    top = _largest_entries(v)
    np.testing.assert_allclose(top.imag, 0, atol=1e-15)
    assert np.all(top.real > 0)

    lo = L.cholesky(mg.tensor(h)).numpy()
    np.testing.assert_allclose(lo @ lo.conj().T, h, atol=1e-11)
    np.testing.assert_allclose(lo, np.linalg.cholesky(h), atol=1e-12)

    g = cplx(3, 3)
    w, v = (t.numpy() for t in L.eig(mg.tensor(g)))
    np.testing.assert_allclose(v @ np.diag(w) @ np.linalg.inv(v), g, atol=1e-11)
    np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, atol=1e-12)
    top = _largest_entries(v)
    np.testing.assert_allclose(top.imag, 0, atol=1e-15)

    sign, logabsdet = L.slogdet(mg.tensor(g))
    np.testing.assert_allclose(sign.numpy() * np.exp(logabsdet.numpy()), np.linalg.det(g), rtol=1e-12)
    assert logabsdet.dtype == np.float64 and sign.dtype == np.complex128


def test_eigh_reads_one_triangle_of_a_complex_matrix():
    """As NumPy: UPLO's triangle only, and the imaginary parts of the diagonal are not read --
    so they, and the other triangle, get no gradient."""
    a = cplx(3, 3)
    w = L.eigvalsh(mg.tensor(a)).numpy()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-12)
    np.testing.assert_allclose(L.eigvalsh(mg.tensor(a), UPLO="U").numpy(), np.linalg.eigvalsh(a, UPLO="U"),
                               atol=1e-12)
    x = leaf(a)
    (g,) = mg.grad((L.eigh(x).eigenvalues ** 3).sum(), [x])
    g = g.numpy()
    assert np.all(g[np.triu_indices(3, 1)] == 0) and np.all(np.diagonal(g).imag == 0)


def test_complex_slogdet_sign_is_differentiable():
    """d sign = i sign Im tr(A^-1 dA): the sign turns on the unit circle, |sign| stays 1."""
    a = cplx(3, 3)
    x = leaf(a)
    sign = L.slogdet(x).sign
    assert sign.requires_grad
    (g,) = mg.grad(mg.angle(sign), [x])
    # angle(det A) = Im log det A: its gradient (this convention) is i * conj(A^-T) = i A^-H
    np.testing.assert_allclose(g.numpy(), 1j * np.linalg.inv(a).conj().T, atol=1e-12)
    (g,) = mg.grad(mg.abs(L.slogdet(x).sign), [x])
    np.testing.assert_allclose(g.numpy(), 0, atol=1e-12)
    real_sign = L.slogdet(leaf(rng.standard_normal((3, 3)))).sign  # +-1: recorded, gradient 0 (PyTorch's)
    assert real_sign.requires_grad and real_sign.grad_fn is not None


def test_complex_linalg_inside_a_checkpoint_and_a_jvp():
    a = cplx(3, 3)

    def f(m):
        v = L.eigh(m).eigenvectors[:, :1]
        return (mg.abs(L.svd(m @ v @ mg.conj(v).mT + m, compute_uv=False)) ** 2).sum()

    x, y = leaf(a), leaf(a)
    (g0,) = mg.grad(f(x), [x])
    (g1,) = mg.grad(mg.checkpoint.checkpoint(f, y), [y])
    np.testing.assert_allclose(g1.numpy(), g0.numpy(), rtol=1e-12)
    t = cplx(3, 3)
    _, tangent = mg.func.jvp(f, (mg.tensor(a),), (mg.tensor(t),))
    # the jvp is <grad, t> in the real inner product
    np.testing.assert_allclose(tangent.item(), np.sum(g0.numpy().conj() * t).real, rtol=1e-10)


@pytest.mark.parametrize("name", ["eigh", "eig", "svd", "qr", "cholesky", "slogdet"])
def test_complex_linalg_on_the_strict_device(name):
    a = hpd(3) if name == "cholesky" else cplx(3, 3)
    fn = {"eigh": lambda m: L.eigh(m).eigenvectors, "eig": lambda m: L.eig(m).eigenvectors,
          "svd": lambda m: L.svd(m).U, "qr": lambda m: L.qr(m).R, "cholesky": L.cholesky,
          "slogdet": lambda m: L.slogdet(m).sign}[name]
    outs = []
    for dev in ("cpu", "strict"):
        x = leaf(a, device=dev)
        r = fn(x)
        (g,) = mg.grad((mg.abs(r) ** 2 * mg.tensor(np.arange(r.size).reshape(r.shape), device=dev)).sum(), [x])
        outs.append((r.numpy(), g.numpy()))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12, atol=1e-12)


def test_complex64_factorizations_keep_their_precision():
    a = cplx(3, 3).astype(np.complex64)
    assert L.eigh(mg.tensor(a)).eigenvalues.dtype == np.float32
    assert L.eigh(mg.tensor(a)).eigenvectors.dtype == np.complex64
    assert L.svd(mg.tensor(a)).S.dtype == np.float32
    assert L.slogdet(mg.tensor(a)).logabsdet.dtype == np.float32
    assert L.qr(mg.tensor(a)).R.dtype == np.complex64
    x = leaf(a)
    (g,) = mg.grad(L.norm(x, "nuc"), [x])
    assert g.dtype == np.complex64
