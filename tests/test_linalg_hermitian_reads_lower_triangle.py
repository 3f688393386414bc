"""``hermitian=True`` (``pinv``, ``matrix_rank``, NumPy's ``svd``) reads the lower triangle alone, as
PyTorch and NumPy do: both take the matrix to ``eigh``, which sees only that triangle (and the
diagonal's real part).  The engine ignored ``hermitian`` and ran the general algorithm on the whole
matrix, so a matrix that is not Hermitian silently got another matrix's answer:
``torch.linalg.pinv([[1, 5], [2, 1]], hermitian=True)`` is ``pinv([[1, 2], [2, 1]])`` =
``[[-1/3, 2/3], [2/3, -1/3]]`` (torch 2.13), the engine gave ``[[-1/9, 5/9], [2/9, -1/9]]``;
``matrix_rank([[0, 7], [0, 0]], hermitian=True)`` is 0 in torch, the engine said 1.  A matrix that
is not square is PyTorch's error there (``eigh`` needs square ones).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

RNG = np.random.default_rng(7)


def _hermitian_of_lower(a):
    below = np.tril(a, -1)
    return below + np.conj(np.swapaxes(below, -1, -2)) + np.real(np.diagonal(a, 0, -2, -1))[..., None] * np.eye(
        a.shape[-1])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pinv_hermitian_reads_the_lower_triangle(dtype, device):
    a = mg.tensor([[1.0, 5.0], [2.0, 1.0]], dtype=dtype, device=device)
    got = mg.linalg.pinv(a, hermitian=True)
    assert got.dtype == a.dtype
    np.testing.assert_allclose(got.numpy(), [[-1 / 3, 2 / 3], [2 / 3, -1 / 3]], rtol=1e-6, atol=1e-6)


def test_complex_pinv_hermitian_reads_the_lower_triangle_and_the_real_diagonal():
    z = mg.tensor([[2.0, 3 + 1j], [1 - 2j, 1 + 5j]], dtype=mg.complex128)
    torch_2_13 = [[-1 / 3, 1 / 3 + 2j / 3], [1 / 3 - 2j / 3, -2 / 3]]
    np.testing.assert_allclose(mg.linalg.pinv(z, hermitian=True).numpy(), torch_2_13, atol=1e-12)


@pytest.mark.parametrize(("matrix", "rank"), [([[1.0, 0.0], [2.0, 4.0]], 1), ([[0.0, 7.0], [0.0, 0.0]], 0),
                                              ([[2.0, -9.0], [0.0, 3.0]], 2)])
def test_matrix_rank_hermitian_reads_the_lower_triangle(matrix, rank):
    got = mg.linalg.matrix_rank(mg.tensor(matrix), hermitian=True)
    assert got.dtype == mg.int64 and int(got) == rank


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2), (0, 0)])
def test_hermitian_answers_are_those_of_the_hermitian_matrix_of_the_lower_triangle(shape, dtype):
    a = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if dtype == "complex128" else 0)
    h = _hermitian_of_lower(a)
    np.testing.assert_allclose(mg.linalg.pinv(mg.tensor(a), hermitian=True).numpy(), np.linalg.pinv(h), atol=1e-10)
    np.testing.assert_array_equal(mg.linalg.matrix_rank(mg.tensor(a), hermitian=True).numpy(),
                                  np.linalg.matrix_rank(h) if h.size else np.zeros(shape[:-2], dtype=np.int64))
    np.testing.assert_allclose(mg.linalg.svd(mg.tensor(a), compute_uv=False, hermitian=True).numpy(),
                               np.linalg.svd(a, compute_uv=False, hermitian=True) if a.size else np.zeros(shape[:-1]),
                               atol=1e-10)


@pytest.mark.parametrize("call", [lambda a: mg.linalg.pinv(a, hermitian=True),
                                  lambda a: mg.linalg.matrix_rank(a, hermitian=True)])
def test_hermitian_refuses_a_matrix_that_is_not_square(call):
    with pytest.raises(RuntimeError, match="square"):
        call(mg.ones((2, 3)))


# torch 2.13, float64: pinv(A, hermitian=True) weighted by W = [[1, 2], [3, 4]] and summed; its gradient
# is pinv's general formula in the whole A and the result (``pinv_backward(grad, result, self)``)
PINV_HERMITIAN_GRADIENTS = {
    "symmetric": ([[4.0, 1.0], [1.0, 3.0]],
                  [[0.016528925619834663, -0.06611570247933869], [-0.1570247933884296, -0.3719008264462807]]),
    "not symmetric": ([[2.0, 5.0], [1.0, 3.0]],
                      [[-0.07999999999999997, -0.1599999999999996], [-0.35999999999999993, -0.5999999999999998]]),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(PINV_HERMITIAN_GRADIENTS))
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_pinv_hermitian_gradient_is_pytorchs(mode, case, dtype, device):
    # The lower triangle folded into a Hermitian matrix first gave the gradient to that triangle alone
    # (a symmetric A's [[0.0165, 0], [-0.2231, -0.3719]]): the derivative along symmetric changes, but not
    # PyTorch's gradient, which an optimizer steps with
    a, expected = PINV_HERMITIAN_GRADIENTS[case]
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype, device=device)
    x = mg.tensor(a, dtype=dtype, device=device, requires_grad=True)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    if mode == "reverse":
        (mg.linalg.pinv(x, hermitian=True) * w).sum().backward()
        assert x.grad.dtype == x.dtype
        np.testing.assert_allclose(x.grad.cpu().numpy(), expected, **tol)
    else:  # <W, J t> for t = each unit matrix: the gradient's entries again
        for i in range(2):
            for j in range(2):
                t = mg.zeros(2, 2, dtype=dtype, device=device)
                t[i, j] = 1.0
                _, dp = mg.func.jvp(lambda m: mg.linalg.pinv(m, hermitian=True), (x.detach(),), (t,))
                np.testing.assert_allclose(float((dp * w).sum().item()), expected[i][j], **tol)


def test_pinv_hermitian_with_a_tolerance_per_matrix_reads_the_lower_triangle():
    a = mg.tensor([[[1.0, 5.0], [2.0, 1.0]], [[4.0, 9.0], [1.0, 3.0]]], dtype=mg.float64)
    got = mg.linalg.pinv(a, atol=mg.tensor([0.1, 0.2], dtype=mg.float64), hermitian=True)
    for k in range(2):
        np.testing.assert_allclose(got[k].numpy(), np.linalg.pinv(_hermitian_of_lower(a[k].numpy())), atol=1e-12)
