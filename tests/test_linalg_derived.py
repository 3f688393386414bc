"""``mg.linalg``'s PyTorch additions built on the other functions (``vector_norm``,
``matrix_norm``, ``multi_dot``, ``vecdot``, ``cond``, ``matrix_rank``, ``cholesky_solve``,
``cholesky_inverse``, ``tensorsolve``, ``tensorinv``, ``householder_product``) and the
``matrix_exp`` op: derivatives of every order in both modes against central differences,
float32, the strict device, and errors.  Values against PyTorch: ``test_nn_vs_torch.py``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

L = mg.linalg
RNG = np.random.default_rng(5)
A = RNG.uniform(-1, 1, (2, 3, 3)) + 2.5 * np.eye(3)


def _spd_factor(x):
    return L.cholesky(mg.matmul(x, mg.swapaxes(x, -1, -2)) + mg.eye(3, dtype=x.dtype, device=x.device))


def _block(x):
    """A well-conditioned (2, 3, 2, 3) tensor from the (2, 3, 3) input: [[x0, x1/10], [x1/10, x0]]."""
    top = mg.concatenate([x[0], x[1] * 0.1], axis=1)
    bottom = mg.concatenate([x[1] * 0.1, x[0]], axis=1)
    return mg.reshape(mg.concatenate([top, bottom], axis=0), (2, 3, 2, 3))


CALLS = {
    "vector_norm_3": lambda x: L.vector_norm(x, 3, dim=(1, 2)),
    "vector_norm_all": lambda x: L.vector_norm(x),
    "matrix_norm_fro": lambda x: L.matrix_norm(x),
    "matrix_norm_nuc": lambda x: L.matrix_norm(x, "nuc"),
    "matrix_norm_inf": lambda x: L.matrix_norm(x, float("inf")),
    "multi_dot": lambda x: L.multi_dot([x[0, 0], x[0], x[1], x[1, :, 0]]),
    "vecdot": lambda x: L.vecdot(x, x[0] * 2, dim=1),
    "cond_2": lambda x: L.cond(x),
    "cond_fro": lambda x: L.cond(x, "fro"),
    "cholesky_solve": lambda x: L.cholesky_solve(x[1], _spd_factor(x[0])),
    "cholesky_solve_upper": lambda x: L.cholesky_solve(x[1], mg.swapaxes(_spd_factor(x[0]), -1, -2), upper=True),
    "cholesky_inverse": lambda x: L.cholesky_inverse(_spd_factor(x[0])),
    "tensorsolve": lambda x: L.tensorsolve(_block(x), x[1, :2]),
    "tensorinv": lambda x: L.tensorinv(mg.reshape(x[0], (3, 3, 1)), ind=1),
    "householder_product": lambda x: L.householder_product(x[0], x[1, 0, :2]),
    "householder_product_batched": lambda x: L.householder_product(x, x[:, 1] * 0.5),
    "matrix_exp": lambda x: L.matrix_exp(x * 0.7),
    "lu_factor": lambda x: L.lu_factor(x).LU,
    "lu_L_U": lambda x: L.lu(x).L * 2 + L.lu(x).U,
    "lu_tall": lambda x: L.lu(x[:, :, :2]).L * 2 + L.lu_factor(x[:, :, :2]).LU,
    "lu_wide": lambda x: L.lu(x[:, :2]).U * 2 + L.lu_factor(x[:, :2]).LU,
    "lu_unpivoted": lambda x: L.lu(x, pivot=False).L * 2 + L.lu(x, pivot=False).U,
    "lu_unpivoted_tall": lambda x: L.lu_factor(mg.swapaxes(x[:, :2], -1, -2), pivot=False).LU,
    "lu_solve": lambda x: L.lu_solve(*L.lu_factor(x[0]), x[1]),
    "lu_solve_adjoint_right": lambda x: L.lu_solve(*L.lu_factor(x[0]), x[1], left=False, adjoint=True),
}


def _input(dtype="float64", device="cpu"):
    return mg.tensor(A.astype(dtype), device=device, requires_grad=True)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_derivatives_both_modes_and_second_order(name):
    assert gradcheck(CALLS[name], _input(), modes=("rev", "fwd"))
    assert gradgradcheck(CALLS[name], _input())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_stays_float32(name):
    x = _input("float32")
    out = CALLS[name](x)
    assert out.dtype == np.float32
    (g,) = mg.grad(out.sum(), [x])
    assert g.dtype == np.float32 and np.isfinite(g.numpy()).all()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_strict_device_matches_the_cpu(name):
    x, xs = _input(), _input(device="strict")
    out, outs = CALLS[name](x), CALLS[name](xs)
    np.testing.assert_allclose(outs.numpy(), out.numpy(), rtol=1e-12, atol=1e-12)
    (g,), (gs,) = mg.grad(out.sum(), [x]), mg.grad(outs.sum(), [xs])
    np.testing.assert_allclose(gs.numpy(), g.numpy(), rtol=1e-12, atol=1e-12)


def test_matrix_exp_known_values():
    # a rotation generator, a nilpotent matrix, a diagonal one, the empty matrix and a large norm
    t = 0.9
    rot = L.matrix_exp(mg.tensor([[0.0, -t], [t, 0.0]], dtype="float64")).numpy()
    np.testing.assert_allclose(rot, [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], rtol=1e-15, atol=1e-15)
    nil = L.matrix_exp(mg.tensor([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0], [0.0, 0.0, 0.0]], dtype="float64")).numpy()
    np.testing.assert_allclose(nil, [[1, 2, 3 + 5.0], [0, 1, 5], [0, 0, 1]], rtol=1e-15)
    big = L.matrix_exp(mg.tensor(np.diag([30.0, -4.0, 0.0]))).numpy()
    np.testing.assert_allclose(big, np.diag(np.exp([30.0, -4.0, 0.0])), rtol=1e-13, atol=1e-300)
    assert L.matrix_exp(mg.zeros(2, 0, 0, dtype="float64")).shape == (2, 0, 0)
    assert np.isnan(L.matrix_exp(mg.tensor([[np.nan, 0.0], [0.0, 1.0]])).numpy()).any()


def test_matrix_exp_gradient_at_a_repeated_eigenvalue():
    # the case eigh cannot do (its cotangents do not determine it): at A = 2I the gradient of
    # <C, expm(A)> is e^2 C
    c = RNG.standard_normal((3, 3))
    a = mg.tensor(2 * np.eye(3), requires_grad=True)
    (g,) = mg.grad((L.matrix_exp(a) * mg.tensor(c)).sum(), [a])
    np.testing.assert_allclose(g.numpy(), np.exp(2) * c, rtol=1e-13)


def test_matrix_rank_and_its_tolerances():
    low = RNG.standard_normal((5, 1)) @ RNG.standard_normal((1, 4))
    stack = mg.tensor(np.stack([low, RNG.standard_normal((5, 4)), np.zeros((5, 4))]))
    np.testing.assert_array_equal(L.matrix_rank(stack).numpy(), [1, 4, 0])
    assert L.matrix_rank(stack).dtype == np.int64
    s = np.linalg.svd(stack.numpy()[1], compute_uv=False)
    assert int(L.matrix_rank(stack[1], atol=float(s[1]) * 0.999).item()) == 2
    assert int(L.matrix_rank(stack[1], rtol=float(s[2] / s[0]) * 0.999).item()) == 3
    assert int(L.matrix_rank(stack[1], tol=float(s[1]) * 0.999).item()) == 2


def test_matrix_rank_reads_tol_and_hermitian_positionally_as_numpy_and_pytorch():
    # matrix_rank(a, tol, hermitian) in NumPy and in PyTorch's older signature; the third argument was read
    # as rtol, so (a, 0, True) asked for the singular values above the largest: a rank of 0
    sym = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])  # eigenvalues 1.27, 3, 4.73
    for tol in (0.0, 1.0, 2.0, 4.0):
        for hermitian in (False, True):
            assert int(L.matrix_rank(mg.tensor(sym), tol, hermitian).item()) == np.linalg.matrix_rank(
                sym, tol, hermitian)


def test_multi_dot_picks_the_cheap_order_and_keeps_vectors():
    a, b, c = mg.randn(10, 100), mg.randn(100, 5), mg.randn(5, 50)
    np.testing.assert_allclose(L.multi_dot([a, b, c]).numpy(), (a.numpy() @ b.numpy()) @ c.numpy(), rtol=1e-5)
    assert L.multi_dot([mg.ones(3), mg.ones(3, 4), mg.ones(4)]).shape == ()


@pytest.mark.parametrize("call, error, match", [
    (lambda: L.multi_dot([mg.ones(3, 3)]), ValueError, "at least 2"),
    (lambda: L.multi_dot([mg.ones(3, 3), mg.ones(2, 3)]), ValueError, "do not chain"),
    (lambda: L.multi_dot([mg.ones(3, 3), mg.ones(1, 3, 3)]), ValueError, "2-D"),
    (lambda: L.cond(mg.ones(3)), ValueError, "matrix"),
    (lambda: L.cond(mg.eye(3), "spectral"), ValueError, "p must be"),
    (lambda: L.vector_norm(mg.ones(3), "fro"), ValueError, "number"),
    (lambda: L.matrix_norm(mg.ones(3)), ValueError, "matrix"),
    (lambda: L.tensorsolve(mg.ones(2, 3, 4), mg.ones(2, 3)), ValueError, "Expected self to satisfy the requirement"),
    (lambda: L.tensorinv(mg.ones(2, 3)), ValueError, "differ in size"),
    (lambda: L.householder_product(mg.ones(2, 3), mg.ones(3)), ValueError, "k <= n <= m"),
    (lambda: L.matrix_exp(mg.ones(2, 3)), ValueError, "square"),
    (lambda: L.matrix_exp(mg.ones(2, 2, dtype="int64")), TypeError, "floating"),
    (lambda: L.cholesky_inverse(mg.ones(2, 3)), ValueError, "square"),
    (lambda: L.lu_factor(mg.ones(3)), ValueError, "matrix"),
    (lambda: L.lu(mg.tensor([[0.0, 1.0], [1.0, 0.0]]), pivot=False), np.linalg.LinAlgError, "pivot 0 is exactly zero"),
    (lambda: L.lu_solve(*L.lu_factor(mg.eye(2, 3)), mg.ones(2, 1)), ValueError, "do not fit"),
    (lambda: L.lu_solve(mg.eye(2), mg.tensor([1, 2, 3]), mg.ones(2, 1)), ValueError, "do not fit"),
    (lambda: L.lu_solve(mg.eye(2), mg.tensor([1, 5]), mg.ones(2, 1)), ValueError, "pivots must be"),
])

def test_bad_arguments_are_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_lu_reconstructs_and_pivots_like_lapack():
    a = mg.tensor(RNG.standard_normal((3, 5, 5)))
    p, low, up = L.lu(a)
    np.testing.assert_allclose((p @ low @ up).numpy(), a.numpy(), atol=1e-13)
    assert np.all(np.abs(np.tril(low.numpy(), -1)) <= 1)  # partial pivoting: multipliers at most 1
    _, piv = L.lu_factor(a)
    assert piv.dtype == np.int32 and piv.shape == (3, 5)
    x = L.lu_solve(*L.lu_factor(a), mg.ones(3, 5, 2, dtype="float64"))
    np.testing.assert_allclose((a @ x).numpy(), 1.0, atol=1e-12)


def test_batched_lstsq_solves_each_matrix_like_numpy():
    a, b = RNG.standard_normal((2, 3, 5, 3)), RNG.standard_normal((2, 3, 5, 2))
    r = L.lstsq(mg.tensor(a), mg.tensor(b))
    for i in np.ndindex(2, 3):
        x, res, rank, s = np.linalg.lstsq(a[i], b[i], rcond=None)
        np.testing.assert_allclose(r.solution.numpy()[i], x, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(r.residuals.numpy()[i], res, rtol=1e-12)
        assert r.rank.numpy()[i] == rank
        np.testing.assert_allclose(r.singular_values.numpy()[i], s, rtol=1e-12)
    assert L.lstsq(mg.tensor(a), mg.tensor(b[..., 0])).solution.shape == (2, 3, 3)
    low = a.copy()
    low[0, 0] = low[0, 0][:, :1] @ RNG.standard_normal((1, 3))  # one rank-1 matrix: no residuals, its rank 1
    r = L.lstsq(mg.tensor(low), mg.tensor(b))
    assert r.residuals.shape == (0,) and r.rank.numpy()[0, 0] == 1
    x, y = mg.tensor(a[0], requires_grad=True), mg.tensor(b[0], requires_grad=True)
    assert gradcheck(lambda p, q: L.lstsq(p, q).solution, [x, y], modes=("rev", "fwd"))
    with pytest.raises(ValueError, match="does not match"):
        L.lstsq(mg.tensor(a), mg.ones(2, 3, 4, 2, dtype="float64"))


def test_pytorchs_tensor_methods_for_the_new_functions():
    x = mg.tensor([[1.0, 2.0], [0.5, 3.0]], dtype="float64")
    factor = L.cholesky(x @ x.T + mg.eye(2, dtype="float64"))
    np.testing.assert_array_equal(x.matrix_exp().numpy(), L.matrix_exp(x).numpy())
    np.testing.assert_array_equal(x.cholesky_solve(factor).numpy(), L.cholesky_solve(x, factor).numpy())
    np.testing.assert_array_equal(factor.cholesky_inverse().numpy(), L.cholesky_inverse(factor).numpy())
    np.testing.assert_array_equal(x.i0().numpy(), mg.special.i0(x).numpy())
    np.testing.assert_array_equal(x.igamma(x * 2).numpy(), mg.special.gammainc(x, x * 2).numpy())
    np.testing.assert_array_equal(x.igammac(x * 2).numpy(), mg.special.gammaincc(x, x * 2).numpy())
    np.testing.assert_array_equal((x + 1).mvlgamma(2).numpy(), mg.special.multigammaln(x + 1, 2).numpy())
    y = x.clone()
    y.i0_()
    np.testing.assert_array_equal(y.numpy(), mg.special.i0(x).numpy())


def test_zero_norms_stay_on_the_tape_with_gradient_zero():
    """The 0-"norm" counts nonzeros: its gradient is 0, but backward through it runs, as PyTorch's
    (torch.linalg.vector_norm(x, 0).backward() and pairwise_distance/pdist/cdist with p=0 run;
    they raised here: the count was detached)."""
    x = mg.tensor([1.0, 0.0, 2.0], requires_grad=True)
    n = mg.linalg.vector_norm(x, 0)
    assert n.item() == 2.0
    n.backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    a = mg.tensor([[1.0, 2.0, 3.0], [0.0, 5.0, 6.0]], requires_grad=True)
    b = mg.tensor([[1.0, 0.0, 3.0], [1.0, 5.0, 0.0]])
    for d in (mg.nn.functional.pairwise_distance(a, b, p=0), mg.nn.functional.pdist(a, p=0),
              mg.cdist(a[None], b[None], p=0)):
        a.grad = None
        d.sum().backward()
        assert np.all(a.grad.numpy() == 0)
    assert mg.nn.functional.pairwise_distance(a, b, p=0).tolist() == [3.0, 3.0]  # (of a - b + eps, as torch)
    with mg.no_grad():
        assert not mg.linalg.vector_norm(x, 0).requires_grad


def test_tensorsolve_asks_only_that_the_sizes_agree():
    # a (2, 3, 6) with dims=(0, 2) is (3, 2, 6): its leading (3, 2) are b's (2, 3) elements in order, as
    # PyTorch's and NumPy's read them (both answer); the engine asked for the same shape and refused
    a, b = RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 3))
    x = L.tensorsolve(mg.tensor(a, requires_grad=True), mg.tensor(b), dims=(0, 2))
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.tensorsolve(a, b, axes=(0, 2)), rtol=1e-12)
    assert gradcheck(lambda t: L.tensorsolve(t, mg.tensor(b), dims=(0, 2)), [mg.tensor(a, requires_grad=True)])
    with pytest.raises(ValueError, match="6 equations, 4 right-hand values"):
        L.tensorsolve(mg.tensor(a), mg.ones(2, 2), dims=(0, 2))
