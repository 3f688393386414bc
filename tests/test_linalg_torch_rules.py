"""PyTorch's rules in ``mg.linalg`` where they differ from NumPy's, or where a wrong
gradient would be silent.

``torch.linalg.solve(A, B)`` reads ``B`` as a stack of vectors when it is 1-D *or*
when its shape is ``A.shape[:-1]`` (``linalg_solve_is_vector_rhs`` in ATen);
NumPy 2 only for 1-D.  For ``A`` of shape ``(2, 2, 2)`` and ``B`` of shape
``(2, 2)`` the two rules give different, equally well-shaped answers, so the
wrong rule is silent.  The references here are per-matrix ``numpy.linalg.solve``
loops, the gradients central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def _well(*shape):
    return RNG.uniform(-1, 1, shape) + 3 * np.eye(shape[-1])


def _t(a, dtype="float64", device=None):
    return mg.tensor(np.asarray(a).astype(dtype), requires_grad=True, device=device)


@pytest.mark.parametrize("a_shape,b_shape", [((2, 2, 2), (2, 2)), ((2, 3, 3), (2, 3)), ((2, 4, 3, 3), (2, 4, 3))])
def test_solve_reads_b_of_shape_a_batch_as_vectors(a_shape, b_shape):
    # torch.linalg.solve(torch.randn(2, 2, 2), torch.randn(2, 2)).shape == (2, 2): one system per matrix
    a, b = _well(*a_shape), RNG.standard_normal(b_shape)
    x = mg.linalg.solve(_t(a), _t(b))
    expected = np.linalg.solve(a, b[..., None])[..., 0]
    assert x.shape == b_shape
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-12)
    assert gradcheck(mg.linalg.solve, [_t(a), _t(b)], modes=("rev", "fwd"))
    assert gradgradcheck(mg.linalg.solve, [_t(a), _t(b)])


@pytest.mark.parametrize("a_shape,b_shape,x_shape", [
    ((2, 3, 3), (3,), (2, 3)), ((2, 3, 3), (3, 1), (2, 3, 1)), ((3, 3), (2, 3, 4), (2, 3, 4)),
    ((1, 3, 3), (2, 3, 2), (2, 3, 2)), ((2, 1, 3, 3), (5, 3, 1), (2, 5, 3, 1))])
def test_solve_broadcasts_batch_axes_and_sums_their_gradients(a_shape, b_shape, x_shape):
    # the shapes are torch.linalg.solve's for these inputs
    a, b = _t(_well(*a_shape)), _t(RNG.standard_normal(b_shape))
    assert mg.linalg.solve(a, b).shape == x_shape
    assert gradcheck(mg.linalg.solve, [a, b], modes=("rev", "fwd"))


@pytest.mark.parametrize("b_shape", [(2, 3), (1, 3), (5, 3)])
def test_solve_refuses_what_torch_refuses(b_shape):
    # torch: "Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)" and alike
    with pytest.raises(ValueError, match="do not match"):
        mg.linalg.solve(_t(_well(3, 3) if b_shape != (5, 3) else _well(2, 1, 3, 3)), _t(RNG.standard_normal(b_shape)))


def test_solve_left_false_solves_x_a_equals_b():
    a, b = _well(2, 3, 3), RNG.standard_normal((4, 3))
    x = mg.linalg.solve(_t(a), _t(b), left=False)
    np.testing.assert_allclose((x.numpy() @ a), np.broadcast_to(b, (2, 4, 3)), atol=1e-12)
    assert gradcheck(lambda p, q: mg.linalg.solve(p, q, left=False), [_t(a), _t(b)], modes=("rev", "fwd"))
    with pytest.raises(RuntimeError, match="left=False"):  # torch refuses a vector b here too
        mg.linalg.solve(_t(a), _t(RNG.standard_normal((2, 3))), left=False)


def test_solve_triangular_keeps_matrices_as_torch_does():
    # torch.linalg.solve_triangular(A (2, 2, 2), B (2, 2), upper=True).shape == (2, 2, 2): B is a matrix
    a, b = np.triu(_well(2, 2, 2)), RNG.standard_normal((2, 2))
    x = mg.linalg.solve_triangular(_t(a), _t(b), upper=True)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched_vector_solve_on_the_strict_device(dtype):
    a, b = _well(2, 3, 3), RNG.standard_normal((2, 3))
    results = []
    for device in ("cpu", "strict"):
        ta, tb = _t(a, dtype, device), _t(b, dtype, device)
        x = mg.linalg.solve(ta, tb)
        assert x.dtype == np.dtype(dtype) and x.shape == (2, 3)
        ga, gb = mg.grad(x.sum(), [ta, tb])
        results.append([x.numpy(), ga.numpy(), gb.numpy()])
    for cpu, strict in zip(*results):
        np.testing.assert_array_equal(cpu, strict)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_complete_qr_of_a_tall_matrix_refuses_its_gradient_as_torch(dtype, device):
    # torch.linalg.qr(A (4, 2), mode="complete"), then backward through Q or R: "RuntimeError: The QR
    # decomposition is not differentiable when mode='complete' and nrows > ncols". Q's last two columns
    # are any basis of the complement; the engine gave them no gradient, silently (a loss on the
    # complement's projector Q2 Q2^H = I - Q1 Q1^H has one).
    a = RNG.standard_normal((4, 2)) + (1j * RNG.standard_normal((4, 2)) if dtype == "complex128" else 0)
    x = mg.tensor(a, requires_grad=True, device=device)
    q, r = mg.linalg.qr(x, mode="complete")
    assert q.shape == (4, 4) and r.shape == (4, 2)
    qn, rn = q.numpy(), r.numpy()
    np.testing.assert_allclose(qn @ rn, a, atol=1e-12)
    np.testing.assert_allclose(qn.conj().T @ qn, np.eye(4), atol=1e-12)
    reduced_q, reduced_r = mg.linalg.qr(mg.tensor(a, device=device))
    np.testing.assert_allclose(qn[:, :2], reduced_q.numpy(), atol=1e-12)
    np.testing.assert_allclose(rn, np.vstack([reduced_r.numpy(), np.zeros((2, 2))]), atol=1e-12)
    for loss in (q[:, 2:].abs().sum(), r.abs().sum()):
        with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
            mg.grad(loss, [x])
    with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        mg.func.jvp(lambda t: mg.linalg.qr(t, mode="complete").Q, (mg.tensor(a, device=device),),
                    (mg.tensor(np.ones_like(a), device=device),))


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2, 3, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_qr_mode_r_returns_an_empty_q_and_refuses_gradients_as_torch(shape, dtype, device):
    # torch.linalg.qr(A, mode="r") -> torch.return_types.linalg_qr(Q=tensor([]), R=...): Q of shape (0,)
    # and A's dtype; R.sum().backward(), Q.sum().backward() and forward mode all raise "RuntimeError: The
    # derivative of linalg.qr depends on Q, which is not computed when mode='r'". The engine returned
    # the bare R (NumPy's mode="r"), and differentiated it.
    a = RNG.standard_normal(shape)
    x = _t(a, dtype, device)
    out = mg.linalg.qr(x, mode="r")
    q, r = out
    assert out.Q is q and out.R is r
    assert q.shape == (0,) and q.dtype == dtype and q.device == x.device
    assert r.dtype == dtype and r.device == x.device
    np.testing.assert_allclose(r.numpy(), mg.linalg.qr(x).R.numpy(), rtol=1e-5, atol=1e-6)
    for loss in (r.sum(), q.sum()):
        with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
            mg.grad(loss, [x])
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        mg.func.jvp(lambda t: mg.linalg.qr(t, mode="r").R, (_t(a, dtype, device),),
                    (_t(np.ones(shape), dtype, device),))


@pytest.mark.parametrize("shape", [(2, 4), (3, 3), (2, 2, 3)])
def test_complete_qr_of_a_wide_or_square_matrix_is_differentiable(shape):
    # m <= n: the complete QR is the reduced one, and torch differentiates it
    fn = lambda a: mg.linalg.qr(a, mode="complete")  # noqa: E731
    assert gradcheck(fn, [_t(RNG.standard_normal(shape))], modes=("rev", "fwd"))
    assert gradgradcheck(fn, [_t(RNG.standard_normal(shape))])


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_slogdet_gradient_at_a_singular_matrix_is_infinite_there_only(dtype, device):
    # torch.linalg.slogdet(A).logabsdet.sum().backward() for A = [[[1, 2], [2, 4]], [[2, 1], [1, 3]]]:
    # A.grad = [[[-inf, inf], [inf, -inf]], [[0.6, -0.2], [-0.2, 0.4]]] (the sign of the infinities is
    # that of LU's zero pivot, -0.0 under MKL). The engine raised LinAlgError from inv in backward,
    # losing the regular matrix's gradient too. log|det| is -inf at the singular matrix: inv(A) =
    # adj(A) / 0 is +-inf where a cofactor is not 0 and NaN where it is (a rank-1 3x3 has all zero).
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]]).astype(dtype)
    x = mg.tensor(a, requires_grad=True, device=device)
    sign, logabsdet = mg.linalg.slogdet(x)
    assert logabsdet.numpy()[0] == -np.inf and sign.numpy()[0] == 0
    (g,) = mg.grad(logabsdet.sum(), [x])
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(g.numpy()[1], [[0.6, -0.2], [-0.2, 0.4]], rtol=tol)
    assert np.isinf(g.numpy()[0].real).all()
    rank_one = mg.tensor(np.outer([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]).astype(dtype), requires_grad=True, device=device)
    (g,) = mg.grad(mg.linalg.slogdet(rank_one).logabsdet, [rank_one])
    assert np.isnan(g.numpy()).all()
    _, tangent = mg.func.jvp(lambda m: mg.linalg.slogdet(m).logabsdet, (mg.tensor(a, device=device),),
                             (mg.tensor(np.ones_like(a), device=device),))
    assert np.isinf(tangent.numpy()[0]) and np.isclose(tangent.numpy()[1], 0.6, rtol=tol)  # tr(A^-1 ones)


def test_slogdet_of_a_regular_matrix_with_a_tiny_determinant_keeps_its_gradient():
    # det = 1e-400 underflows to 0 in float64 while LU's pivots are not 0: still regular
    a = np.diag([1e-200, 1e-200, 1.0])
    x = mg.tensor(a, requires_grad=True)
    (g,) = mg.grad(mg.linalg.slogdet(x).logabsdet, [x])
    np.testing.assert_allclose(g.numpy(), np.diag([1e200, 1e200, 1.0]), rtol=1e-12)
    assert gradcheck(lambda m: mg.linalg.slogdet(m).logabsdet, [_t(_well(2, 3, 3))], modes=("rev", "fwd"))
    assert gradgradcheck(lambda m: mg.linalg.slogdet(m).logabsdet, [_t(_well(2, 3, 3))])
