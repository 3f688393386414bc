"""``mg.linalg`` against NumPy (and SciPy for ``solve_triangular``): the public
functions' results, NumPy's conventions (vectors in ``solve``, full matrices,
modes, every norm order, keepdims), gradients of the compositions, the
degenerate-spectrum caveat, and the strict stand-in device."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck, gradgradcheck

L = mg.linalg
RNG = np.random.default_rng(2016)


def _t(a, requires_grad=True, device=None):
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype="float64", requires_grad=requires_grad,
                     device=device)


def well(*shape):
    n = shape[-1]
    return RNG.uniform(-1, 1, shape) + 3 * np.eye(n)


def close(a, b, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a.numpy() if isinstance(a, mg.Tensor) else a), b, rtol=rtol, atol=atol)


def test_inverse_determinants_and_solve_match_numpy_batched():
    a = well(2, 3, 3)
    close(L.inv(_t(a)), np.linalg.inv(a))
    close(L.det(_t(a)), np.linalg.det(a))
    sign, logdet = L.slogdet(_t(-a))
    ref = np.linalg.slogdet(-a)
    close(sign, ref.sign)
    close(logdet, ref.logabsdet)
    assert sign.requires_grad and logdet.requires_grad  # the sign recorded, gradient 0 (PyTorch's)
    b = RNG.standard_normal((3, 2))
    close(L.solve(_t(a), _t(b)), np.linalg.solve(a, b))
    v = RNG.standard_normal(3)
    x = L.solve(_t(a[0]), _t(v))
    assert x.shape == (3,)
    close(x, np.linalg.solve(a[0], v))
    with pytest.raises(ValueError, match="square"):
        L.inv(_t(RNG.standard_normal((2, 3))))
    with pytest.raises(ValueError, match="do not match"):
        L.solve(_t(a[0]), _t(RNG.standard_normal(4)))


def test_cholesky_reads_one_triangle_like_numpy():
    m = RNG.standard_normal((3, 3))
    spd = m @ m.T + np.eye(3)
    noisy = np.tril(spd) + np.triu(RNG.standard_normal((3, 3)), 1)
    close(L.cholesky(_t(noisy)), np.linalg.cholesky(noisy))
    close(L.cholesky(_t(spd.T), upper=True), np.linalg.cholesky(spd.T, upper=True))
    t = _t(noisy)
    (g,) = mg.grad(L.cholesky(t).sum(), [t])
    assert not np.triu(g.numpy(), 1).any()  # the upper triangle is not read


def test_eigh_and_svd_reconstruct_and_match_numpy_up_to_sign():
    s = RNG.standard_normal((2, 4, 4))
    s = s + np.swapaxes(s, -1, -2)
    w, v = L.eigh(_t(s))
    close(w, np.linalg.eigh(s).eigenvalues)
    close(v.numpy() @ (w.numpy()[..., :, None] * np.swapaxes(v.numpy(), -1, -2)), s, atol=1e-10)
    w_u, _ = L.eigh(_t(np.triu(s)), UPLO="U")
    close(w_u, w.numpy())
    for shape in [(4, 3), (3, 4), (2, 3, 3)]:
        a = RNG.standard_normal(shape)
        u, sv, vh = L.svd(_t(a), full_matrices=False)
        close(sv, np.linalg.svd(a, compute_uv=False))
        close((u.numpy() * sv.numpy()[..., None, :]) @ vh.numpy(), a, atol=1e-10)
        uf, _, vhf = L.svd(_t(a))
        ref = np.linalg.svd(a)
        assert uf.shape == ref.U.shape and vhf.shape == ref.Vh.shape
        close(np.swapaxes(uf.numpy(), -1, -2) @ uf.numpy(), np.broadcast_to(np.eye(shape[-2]), ref.U.shape),
              atol=1e-12)
        close(L.svd(_t(a), compute_uv=False), ref.S)


def test_qr_modes():
    a = RNG.standard_normal((4, 3))
    q, r = L.qr(_t(a))
    close(q.numpy() @ r.numpy(), a, atol=1e-12)
    assert (np.diagonal(r.numpy()) >= 0).all()
    close(np.abs(r.numpy()), np.abs(np.linalg.qr(a).R))
    qc, rc = L.qr(_t(a), mode="complete")
    assert qc.shape == (4, 4) and rc.shape == (4, 3)
    close(qc.numpy() @ rc.numpy(), a, atol=1e-12)
    close(qc.numpy().T @ qc.numpy(), np.eye(4), atol=1e-12)
    close(L.qr(_t(a), mode="r").R, r.numpy())
    wide = RNG.standard_normal((2, 4))
    qw, rw = L.qr(_t(wide))
    close(qw.numpy() @ rw.numpy(), wide, atol=1e-12)
    with pytest.raises(ValueError, match="raw"):
        L.qr(_t(a), mode="raw")


NORMS = [
    ((5,), {}), ((5,), {"ord": 1}), ((5,), {"ord": np.inf}), ((5,), {"ord": -np.inf}), ((5,), {"ord": 3}),
    ((5,), {"ord": 0.5}), ((5,), {"ord": -2}), ((5,), {"ord": 0}),
    ((3, 4), {}), ((3, 4), {"ord": "fro"}), ((3, 4), {"ord": "nuc"}), ((3, 4), {"ord": 1}),
    ((3, 4), {"ord": -1}), ((3, 4), {"ord": 2}), ((3, 4), {"ord": -2}), ((3, 4), {"ord": np.inf}),
    ((3, 4), {"ord": -np.inf}),
    ((2, 3, 4), {"axis": 1}), ((2, 3, 4), {"axis": (2, 0), "ord": 1}), ((2, 3, 4), {"axis": (0, 2), "ord": np.inf}),
    ((2, 3, 4), {"axis": (1, 2), "ord": "nuc", "keepdims": True}), ((2, 3, 4), {"keepdims": True}),
    ((2, 3, 4), {"axis": -1, "ord": 3, "keepdims": True}), ((2, 3, 4), {"axis": (-1, -2), "ord": 2}),
]


@pytest.mark.parametrize("shape, kw", NORMS, ids=[f"{s}-{k}" for s, k in NORMS])
def test_norm_matches_numpy_with_gradients(shape, kw):
    a = RNG.uniform(0.3, 2.0, shape) * RNG.choice([-1, 1], shape)
    out = L.norm(_t(a), **kw)
    ref = np.linalg.norm(a, **kw)
    assert out.shape == np.shape(ref)
    close(out, ref)
    if kw.get("ord") != 0:
        t = _t(a)
        assert gradcheck(lambda x: L.norm(x, **kw), [t])


def test_norm_subgradients_and_errors():
    z = _t(np.zeros(3))
    (g,) = mg.grad(L.norm(z), [z])
    assert not g.numpy().any()  # the 2-norm's subgradient 0 at the origin, not nan
    with pytest.raises(ValueError, match="invalid norm order"):
        L.norm(_t(np.ones(3)), "fro")
    with pytest.raises(ValueError, match="invalid norm order"):
        L.norm(_t(np.ones((2, 2))), 3)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        L.norm(_t(np.ones((2, 2, 2))), 1)


def test_pinv_matrix_power_lstsq_solve_triangular():
    a = RNG.standard_normal((4, 3))
    close(L.pinv(_t(a)), np.linalg.pinv(a))
    deficient = np.outer(RNG.standard_normal(4), RNG.standard_normal(3))
    close(L.pinv(_t(deficient)), np.linalg.pinv(deficient), atol=1e-10)
    sq = well(3, 3)
    for n in (0, 1, 2, 5, -1, -3):
        close(L.matrix_power(_t(sq), n), np.linalg.matrix_power(sq, n))
    for b in (RNG.standard_normal(4), RNG.standard_normal((4, 2))):
        x, res, rank, s = L.lstsq(_t(a), _t(b))
        rx, rres, rrank, rs = np.linalg.lstsq(a, b)
        close(x, rx)
        close(res, rres)
        assert int(rank) == rrank
        close(s, rs)
    x, res, rank, _ = L.lstsq(_t(deficient), _t(RNG.standard_normal(4)))
    assert int(rank) == 1 and res.shape == (0,)
    scipy_linalg = pytest.importorskip("scipy.linalg")
    t = well(3, 3)
    b = RNG.standard_normal((3, 2))
    for kw in ({"lower": True}, {}, {"lower": True, "trans": 1}, {"unit_diagonal": True}, {"trans": "T"}):
        close(L.solve_triangular(_t(t), _t(b), **kw), scipy_linalg.solve_triangular(t, b, **kw))
    tt = _t(t)
    (g,) = mg.grad(L.solve_triangular(tt, _t(b), lower=True).sum(), [tt])
    assert not np.triu(g.numpy(), 1).any()


@pytest.mark.parametrize("fn", [
    lambda a, b: L.solve(a, b[..., 0]),
    lambda a, b: L.matrix_power(a, 3),
    lambda a, b: L.lstsq(a[:, :2], b[:, 0])[0],
    lambda a, b: L.solve_triangular(a, b, lower=True, unit_diagonal=True),
    lambda a, b: L.norm(a, "nuc") + L.norm(a, -2),
    lambda a, b: L.svd(a)[0],
    lambda a, b: L.qr(a, mode="complete")[1],
])
def test_gradients_of_compositions(fn):
    a, b = _t(well(3, 3)), _t(RNG.standard_normal((3, 2)))
    assert gradcheck(fn, [a, b])
    assert gradgradcheck(fn, [a, b])


def test_degenerate_spectra_the_caveat():
    # a repeated eigenvalue (singular value): the vectors are not unique, so their own
    # gradient does not exist; eigenvalue gradients and losses that depend on the
    # eigenspace only (here a projector) are right -- LAPACK returns the copies an ulp
    # apart, and those near-equal pairs must not blow rounding noise up by 1 / gap
    q, _ = np.linalg.qr(RNG.standard_normal((3, 3)))
    p, _ = np.linalg.qr(RNG.standard_normal((3, 3)))
    s = _t((q * np.array([1.0, 1.0, 3.0])) @ q.T)
    w, _ = L.eigh(s)
    (gw,) = mg.grad(w.sum(), [s])
    close(gw, np.eye(3), atol=1e-12)  # d trace / d (lower triangle)
    c = _t(RNG.standard_normal((3, 3)), requires_grad=False)

    def eigenspace(x):
        v = L.eigh(x)[1][:, :2]
        return ((v @ v.T) * c).sum()

    def singular_space(x):
        u = L.svd(x)[0][:, :2]
        return ((u @ u.T) * c).sum() + L.norm(x, "nuc")

    assert gradcheck(eigenspace, [s], modes=("rev",))
    assert gradcheck(singular_space, [_t((q * np.array([2.0, 2.0, 1.0])) @ p.T)])
    # forward mode cannot tell a projector from a matrix function: the eigenvector
    # tangent that couples the equal pair is NaN (the eigenvectors have no derivative)
    t = _t(RNG.standard_normal((3, 3)), requires_grad=False)
    _, tangent = mg.func.jvp(eigenspace, (s.detach(),), (t,))
    assert np.isnan(tangent.numpy())


def _spectral(values, seed=3):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(values), len(values))))
    return (q * np.asarray(values, dtype=float)) @ q.T


def _expm_sym(a):
    w, v = np.linalg.eigh(a)
    return (v * np.exp(w)) @ v.T


@pytest.mark.parametrize("values", [[2.0, 2.0, 2.0], [1.0, 1.0, 3.0], [0.5, -1.0, 0.5]])
def test_eigenvalue_only_gradients_are_exact_at_repeated_eigenvalues(values):
    # sum(exp(w)) = trace(expm(A)): its gradient is expm(A), on the lower triangle (eigh reads it)
    a = _t(_spectral(values))
    (g,) = mg.grad(mg.exp(L.eigvalsh(a)).sum(), [a])
    want = np.tril(2 * _expm_sym(a.numpy())) - np.diag(np.diag(_expm_sym(a.numpy())))
    close(g, want, rtol=1e-12, atol=1e-12)
    a32 = mg.tensor(_spectral(values).astype("float32"), requires_grad=True)
    (g32,) = mg.grad(mg.exp(L.eigvalsh(a32)).sum(), [a32])
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32.numpy(), want, rtol=1e-5, atol=1e-5)


def test_matrix_function_through_eigh_at_a_repeated_eigenvalue_is_nan_not_wrong():
    # <C, V exp(W) V^T> at A = 2I: the true gradient is e^2 sym(C) (folded onto the lower
    # triangle); the eigh cotangents show only its diagonal, so the gradient is NaN --
    # before, the off-diagonal was silently dropped
    c = RNG.standard_normal((3, 3))

    def matrix_exp(x):
        w, v = L.eigh(x)
        return ((v * mg.exp(w)[None, :]) @ v.T * mg.tensor(c)).sum()

    a = _t(2 * np.eye(3))
    (g,) = mg.grad(matrix_exp(a), [a])
    assert np.isnan(g.numpy()[np.tril_indices(3)]).all()
    b = _t(_spectral([1.0, 2.0, 4.0]))  # distinct eigenvalues: exact
    assert gradcheck(matrix_exp, [b], modes=("rev", "fwd"))
    (g,) = mg.grad(matrix_exp(b), [b])
    assert np.isfinite(g.numpy()).all()


def test_equal_cotangents_with_different_gradients_at_a_repeated_eigenvalue_are_nan():
    # At A = 2I (eigh returns V = I), with C's diagonal 0: <C, V V^T> (constant, gradient 0)
    # and <C, V e^(W - 2) V^T> (= <C, e^(A - 2I)>, gradient sym(C)) send eigh the same
    # cotangents -- gw = 0 for both -- so no rule over them is right for both: NaN, not 0.
    c = RNG.standard_normal((3, 3))
    np.fill_diagonal(c, 0.0)

    def projector(x):
        w, v = L.eigh(x)
        return ((v @ v.T) * mg.tensor(c)).sum()

    def shifted_exp(x):
        w, v = L.eigh(x)
        return (((v * mg.exp(w - 2.0)[None, :]) @ v.T) * mg.tensor(c)).sum()

    cotangents = []
    for loss in (projector, shifted_exp):
        a = _t(2 * np.eye(3))
        w, v = L.eigh(a)
        assert np.array_equal(v.numpy(), np.eye(3))
        (g,) = mg.grad(loss(a), [a])
        assert np.isnan(g.numpy()[np.tril_indices(3, -1)]).all()
        wv = L.eigh(_t(2 * np.eye(3)))
        tw, tv = mg.tensor(wv[0].numpy(), requires_grad=True), mg.tensor(wv[1].numpy(), requires_grad=True)
        body = (((tv * (mg.exp(tw - 2.0) if loss is shifted_exp else 1.0 + 0 * tw)[None, :]) @ tv.T)
                * mg.tensor(c)).sum()
        cotangents.append([t.numpy() for t in mg.grad(body, [tw, tv])])
    for x, y in zip(*cotangents):
        np.testing.assert_array_equal(x, y)
    # with C's diagonal not 0 the eigenvector cotangent shows it: exact where gw = 0 says G = 0
    c_full = RNG.standard_normal((3, 3))
    for loss, want in ((lambda w, v: (v @ v.T), np.zeros((3, 3))),
                       (lambda w, v: (v * ((w - 2.0) ** 2 + 1.0)[None, :]) @ v.T, np.zeros((3, 3)))):
        a = _t(2 * np.eye(3))
        (g,) = mg.grad((loss(*L.eigh(a)) * mg.tensor(c_full)).sum(), [a])
        np.testing.assert_array_equal(g.numpy(), want)


def test_eigenvalues_and_projector_together_at_a_repeated_eigenvalue_are_nan():
    # both cotangents reach the repeated eigenvalue: the gradient is not a function of them
    c = _t(RNG.standard_normal((3, 3)), requires_grad=False)
    a = _t(_spectral([1.0, 1.0, 3.0]))
    w, v = L.eigh(a)
    (g,) = mg.grad(w.sum() + ((v[:, :2] @ v[:, :2].T) * c).sum(), [a])
    assert np.isnan(g.numpy()).any()
    # the projector onto the eigenvector of the simple eigenvalue couples no equal pair: exact
    assert gradcheck(lambda x: (L.eigh(x)[1][:, 2:] * L.eigh(x)[1][:, 2:].T * c).sum() + L.eigvalsh(x).sum(),
                     [a], modes=("rev", "fwd"))


def test_linalg_runs_on_the_strict_device():
    a = well(2, 3, 3)
    b = RNG.standard_normal((2, 3, 1))
    for fn in (lambda x, y: L.inv(x), lambda x, y: L.det(x), lambda x, y: L.slogdet(x)[1],
               lambda x, y: L.solve(x, y), lambda x, y: L.cholesky(x @ x.mT), lambda x, y: L.eigh(x)[1],
               lambda x, y: L.svd(x)[0], lambda x, y: L.qr(x)[0], lambda x, y: L.pinv(x),
               lambda x, y: L.norm(x, axis=(-2, -1), ord=2)):
        outs = []
        for dev in ("cpu", "strict"):
            x, y = _t(a, device=dev), _t(b, device=dev)
            r = fn(x, y)
            (g,) = mg.grad(r.sum(), [x])
            outs.append((r.numpy(), g.numpy()))
        np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_one_eigenvector_of_a_repeated_eigenvalue_has_no_gradient_nan_not_a_finite_number(dtype):
    # v[:, 0] of eigenvalue 1 (twice): any rotation of the eigenspace's basis is as good, and
    # this loss changes under it -- no derivative exists; the eigenspace's own losses keep theirs
    a = mg.tensor(_spectral([1.0, 1.0, 3.0, 5.0]).astype(dtype), requires_grad=True)
    (g,) = mg.grad((L.eigh(a)[1][:, 0] ** 3).sum(), [a])
    assert np.isnan(g.numpy()).any()
    (g,) = mg.grad((L.eigh(a)[1][:, 3] ** 3).sum(), [a])  # the simple eigenvalue's vector: defined
    assert np.isfinite(g.numpy()).all()
    c = mg.tensor(RNG.standard_normal((4, 4)).astype(dtype))
    v = L.eigh(a)[1][:, :2]
    (g,) = mg.grad(((v @ v.T) * c).sum(), [a])  # the projector onto the whole eigenspace: defined
    assert np.isfinite(g.numpy()).all()


SINGULAR = [  # (matrix, its cofactor matrix adj(A)^T = d det / dA, from the definition)
    ([[1.0, 2.0], [2.0, 4.0]], [[4.0, -2.0], [-2.0, 1.0]]),
    ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], [[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]]),
    ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], [[0.0] * 3] * 3),  # rank 1: all 2x2 minors vanish
    ([[0.0] * 3] * 3, [[0.0] * 3] * 3),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("a,cofactors", SINGULAR)
def test_det_has_its_gradient_at_a_singular_matrix(a, cofactors, device):
    """det is a polynomial: its gradient, the cofactor matrix, exists everywhere. At an exactly
    singular matrix the backward's inv(a) raised NumPy's LinAlgError (PyTorch 2.13 answers
    zeros there, wrong for rank n - 1: [[1, 2], [2, 4]] has cofactors [[4, -2], [-2, 1]])."""
    a = np.array(a)
    x = mg.tensor(a, requires_grad=True, device=device)
    mg.linalg.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), cofactors, atol=1e-12)
    _, along_identity = mg.func.jvp(mg.linalg.det, (mg.tensor(a, device=device),),
                                    (mg.tensor(np.eye(len(a)), device=device),))
    np.testing.assert_allclose(along_identity.numpy(), np.trace(np.array(cofactors)), atol=1e-12)


def test_det_second_derivative_at_a_singular_matrix_and_in_a_batch():
    """The cofactors of a singular matrix are determinants of its minors, taken with det
    again: the second derivative is the polynomial's too (d cofactor_00 / dA of this rank-1
    matrix: the 2x2 minor's cofactors [[9, -6], [-6, 4]] in the lower block)."""
    x = mg.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], requires_grad=True)
    (g,) = mg.grad(mg.linalg.det(x), [x], create_graph=True)
    (h,) = mg.grad(g[0, 0], [x])
    np.testing.assert_allclose(h.numpy(), [[0, 0, 0], [0, 9, -6], [0, -6, 4]], atol=1e-12)
    batch = mg.tensor([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]], requires_grad=True)
    mg.linalg.det(batch).sum().backward()  # one singular matrix beside a regular one
    np.testing.assert_allclose(batch.grad.numpy(), [[[4, -2], [-2, 1]], [[3, -1], [-1, 2]]], atol=1e-12)
    z = mg.tensor([[1 + 1j, 2.0], [2 + 2j, 4.0]], requires_grad=True)  # complex: conj(cofactors) * (1 + 2i)
    d = mg.linalg.det(z)
    (d.real + 2 * d.imag).backward()
    np.testing.assert_allclose(z.grad.numpy(), np.conj([[4.0, -2 - 2j], [-2.0, 1 + 1j]]) * (1 + 2j), atol=1e-12)


def test_eigh_and_eigvalsh_take_uplo_in_either_case():
    """PyTorch and NumPy read ``UPLO`` case-insensitively (``'u'`` is ``'U'``; PyTorch's own
    ``test_eigh_lower_uplo`` passes ``'u'`` and ``'l'``); the engine refused the lower-case
    letters.  Anything else is still refused, in PyTorch's words."""
    s = RNG.standard_normal((2, 4, 4))  # not symmetric: the triangle read shows in the answer
    for uplo in ("U", "L"):
        expected = np.linalg.eigh(s, UPLO=uplo).eigenvalues
        close(L.eigvalsh(_t(s), UPLO=uplo.lower()), expected)
        close(L.eigh(_t(s), UPLO=uplo.lower()).eigenvalues, expected)
    for bad in ("a", "wrong", "Lower", ""):
        with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got " + bad):
            L.eigvalsh(_t(s), UPLO=bad)
