"""``mg.linalg`` at extremal matrices against PyTorch 2.13's outputs, recorded by
``tests/data/make_torch_linalg_extremes.py`` from the cases of ``tests/data/linalg_extremes_cases.py``:
each output's values (NaN and infinities where PyTorch has them), dtype and shape, float64 and
float32, on the CPU and the strict device; and where a case asks, the gradient.

``lu`` / ``lu_factor_ex`` of a singular matrix whose pivot column is zero: LAPACK's ``getrf``
divides nothing by a zero pivot (``L``'s column stays 0); the package's elimination divided 0 by
0 and filled ``L``'s column with NaN.  The gradients of singular values whose squares overflow
(``svdvals``, the spectral and nuclear norms of a huge matrix) and of the eigenvalues of a matrix
of subnormals: PyTorch's are finite (``U V^T``, ``V V^T``), the package's were NaN -- terms for the
unused singular vectors / eigenvectors, 0 times an overflowed ``1 / gap``.  The ``_ex`` functions
of a stack of empty matrices (``cholesky_ex(zeros(0, 0))``): PyTorch's empty answers, the
package's a ``ValueError`` from reshaping by -1.  ``cond(A, p)`` for ``p`` through the inverse
(1, -1, inf, -inf, 'fro') of a singular matrix is inf (PyTorch's), was a ``LinAlgError``; of an
empty matrix of any shape 0, was an ``IndexError`` for a 3 x 0 one.  ``matrix_norm`` 1 and inf of
an empty matrix are 0 (were an ``IndexError``), ``vector_norm`` inf and negative ``p`` of an empty
vector PyTorch's ``RuntimeError`` (inf was an ``IndexError``, ``p < 0`` silently inf).
``slogdet`` of a real matrix with NaN: sign 0 (PyTorch's; NumPy's, which the package gave, is 1).
``cholesky`` of a matrix with NaN: PyTorch's ``LinAlgError`` at the NaN pivot (the package returned
NumPy's NaN factor).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from tests.data.linalg_extremes_cases import CASES

ANSWERS = json.loads((Path(__file__).parent / "data" / "torch_linalg_extremes.json").read_text())["cases"]


def _outputs(out) -> list:
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize(("name", "dtype"), [(n, dt) for n in sorted(CASES) for dt in CASES[n][3]])
def test_outputs_are_torchs(name, dtype, device):
    fn, values, grad, _ = CASES[name]
    answer = ANSWERS[name][dtype]
    a = mg.tensor(values, dtype=dtype, device=device, requires_grad=grad)
    if "error" in answer:
        with pytest.raises(RuntimeError) as info:
            fn(mg, a)
        assert str(info.value) == answer["message"]
        return
    outs = _outputs(fn(mg, a))
    assert [str(o.dtype) for o in outs] == answer["dtypes"]
    assert [list(o.shape) for o in outs] == answer["shapes"]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for got, want in zip(outs, answer["outputs"]):
        got = np.asarray(got.detach().cpu().numpy(), dtype=np.float64)
        want = np.asarray(want, dtype=np.float64).reshape(got.shape)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want[np.isfinite(want)]).max(initial=0),
                                   equal_nan=True)
    if grad:
        loss = sum((i + 1.5) * o.sum() for i, o in enumerate(outs) if o.dtype.kind == "f")
        loss.backward()
        want = np.asarray(answer["grad"], dtype=np.float64)
        np.testing.assert_allclose(a.grad.cpu().numpy(), want, rtol=rtol * 100, atol=rtol * 100 * np.abs(want).max(),
                                   equal_nan=True)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_complex_lu_with_a_zero_pivot_column_is_finite(device):
    """The same for complex matrices (the zero pivot test is the same): ``L``'s first column is
    ``e_0`` and ``P L U`` is the matrix."""
    a = np.asarray(CASES["lu of zero first column"][1]) * (1 + 2j)
    p, low, up = mg.linalg.lu(mg.tensor(a, dtype=mg.complex128, device=device))
    low = low.cpu().numpy()
    np.testing.assert_array_equal(low[:, 0], [1, 0, 0])
    np.testing.assert_allclose(p.cpu().numpy() @ low @ up.cpu().numpy(), a, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 2, 2)])
@pytest.mark.parametrize("name", ["cholesky_ex", "inv_ex", "lu_factor_ex", "ldl_factor_ex"])
def test_complex_ex_functions_of_empty_stacks(name, shape):
    """The same for complex matrices (whose failure counts are computed on the host for every
    function): the outputs are as empty as the real ones'."""
    real = getattr(mg.linalg, name)(mg.zeros(shape, dtype=mg.float64))
    out = getattr(mg.linalg, name)(mg.zeros(shape, dtype=mg.complex128))
    assert [o.shape for o in out] == [o.shape for o in real]
    assert out[0].dtype == mg.complex128 and out[-1].dtype == mg.int32


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_matrix_exp_of_a_matrix_near_overflow(device):
    """A 1-norm beyond 2^1023 needs more than 1023 squarings, where ``2.0 ** s`` overflowed: an
    ``OverflowError`` for ``matrix_exp(diag(-1e308, 1))``.  The exact answers: ``diag(0, e)``, and
    ``exp(diag(-1e300, -1e300)) = 0`` with gradient 0 (torch 2.13's is 1 for the first, not e)."""
    got = mg.linalg.matrix_exp(mg.tensor([[-1e308, 0.0], [0.0, 1.0]], dtype=mg.float64, device=device))
    np.testing.assert_allclose(got.cpu().numpy(), [[0.0, 0.0], [0.0, np.e]], rtol=1e-14)
    a = mg.tensor([[-1e300, 0.0], [0.0, -1e300]], dtype=mg.float64, device=device, requires_grad=True)
    out = mg.linalg.matrix_exp(a)
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().cpu().numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(a.grad.cpu().numpy(), np.zeros((2, 2)))
    huge = mg.linalg.matrix_exp(mg.full((2, 2), 1e308, dtype=mg.float64, device=device))
    assert np.all(huge.cpu().numpy() == np.inf)


# torch 2.13: a = torch.tensor(A, dtype=torch.float64, requires_grad=True); q, r = torch.linalg.qr(a);
# (q.sum() + 2 * r.sum()).backward() -> a.grad, and torch.func.jvp(lambda z: torch.linalg.qr(z)[1],
# (a,), (torch.ones_like(a),)) -> the tangent of R
RANK_DEFICIENT_QR = {
    "zero column": ([[0.0, 1.0], [0.0, 1.0]], [[math.nan, 2.0], [math.nan, 2.0]]),
    "zero matrix": ([[0.0, 0.0], [0.0, 0.0]], [[math.nan, math.nan], [math.nan, math.nan]]),
    "wide, zero first column": ([[0.0, 1.0, 2.0], [0.0, 1.0, 3.0]], [[math.nan, 2.0, 2.0], [math.nan, 2.0, 2.0]]),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(RANK_DEFICIENT_QR))
def test_qr_of_a_rank_deficient_matrix_differentiates_to_nan_as_pytorchs(name, device):
    # R has a zero on its diagonal: PyTorch's triangular solves by R answer IEEE's NaN there; the
    # general solve the gradient used raised NumPy's LinAlgError("Singular matrix") from backward
    values, grad = RANK_DEFICIENT_QR[name]
    a = mg.tensor(values, dtype="float64", device=device, requires_grad=True)
    q, r = mg.linalg.qr(a)
    (q.sum() + 2 * r.sum()).backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), grad)
    _, tangent = mg.func.jvp(lambda z: mg.linalg.qr(z)[1], (a.detach(),), (mg.ones_like(a.detach()),))
    assert np.isnan(tangent.cpu().numpy()).all()   # torch's: NaN (and +-inf beside a wide one's zero column)
    # the batch's full-rank matrix keeps its exact gradient beside a rank-deficient one
    pair = mg.tensor([[[0.0, 1.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]], dtype="float64", device=device,
                     requires_grad=True)
    single = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", device=device, requires_grad=True)
    mg.linalg.qr(pair)[1].sum().backward()
    mg.linalg.qr(single)[1].sum().backward()
    np.testing.assert_allclose(pair.grad.cpu().numpy()[1], single.grad.cpu().numpy(), rtol=1e-12, atol=1e-15)
    assert np.isnan(pair.grad.cpu().numpy()[0][:, 0]).all()


# torch 2.13 (float64): U = [[1, 2], [0, 0]], B = [[1], [1]], each with requires_grad=True;
# y = f(U, B); y.sum().backward() -> (y, U.grad, B.grad)
SINGULAR_TRIANGLE = [[1.0, 2.0], [0.0, 0.0]]
INF = math.inf
TRIANGULAR_SOLVES = {
    "solve_triangular": (lambda u, b: mg.linalg.solve_triangular(u, b, upper=True), [[1.0], [1.0]],
                         [[-INF], [INF]], [[INF, -INF], [0.0, INF]], [[1.0], [-INF]]),
    "solve_triangular_right": (lambda u, b: mg.linalg.solve_triangular(u, b, upper=True, left=False),
                               [[1.0, 1.0]], [[1.0, -INF]], [[INF, -INF], [0.0, INF]], [[-INF, INF]]),
    "triangular_solve": (lambda u, b: mg.triangular_solve(b, u, upper=True)[0], [[1.0], [1.0]],
                         [[-INF], [INF]], [[INF, -INF], [0.0, INF]], [[1.0], [-INF]]),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(TRIANGULAR_SOLVES))
def test_a_singular_triangle_solves_to_ieee_infinities_as_pytorchs(name, device):
    # PyTorch's triangular solve (LAPACK's trsm) divides by the zero on the diagonal; the package
    # solved the triangle with the general solve and raised "The solver failed because the input
    # matrix is singular", which PyTorch's solve_triangular never says
    f, b_values, value, grad_u, grad_b = TRIANGULAR_SOLVES[name]
    u = mg.tensor(SINGULAR_TRIANGLE, dtype="float64", device=device, requires_grad=True)
    b = mg.tensor(b_values, dtype="float64", device=device, requires_grad=True)
    y = f(u, b)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), value)
    y.sum().backward()
    np.testing.assert_array_equal(u.grad.cpu().numpy(), grad_u)
    np.testing.assert_array_equal(b.grad.cpu().numpy(), grad_b)


def test_lu_solve_with_a_zero_pivot_answers_as_pytorchs():
    # torch.linalg.lu_solve(LU, pivots, B) with U's last pivot 0: [[-inf], [inf]]
    lu = mg.tensor([[1.0, 2.0], [0.5, 0.0]], dtype="float64")
    x = mg.linalg.lu_solve(lu, mg.tensor([1, 2], dtype="int32"), mg.tensor([[1.0], [1.0]], dtype="float64"))
    np.testing.assert_array_equal(x.numpy(), [[-INF], [INF]])


def test_cholesky_inverse_of_a_factor_with_a_zero_pivot_is_pytorchs_error():
    # the inverse does not exist: PyTorch's potri refuses, in these words
    with pytest.raises(mg.linalg.LinAlgError, match=r"^cholesky_inverse: The diagonal element 2 is zero, the "
                       r"inversion could not be completed because the input matrix is singular\.$"):
        mg.cholesky_inverse(mg.tensor([[1.0, 0.0], [1.0, 0.0]], dtype="float64"))
    with pytest.raises(mg.linalg.LinAlgError, match=r"^cholesky_inverse: \(Batch element 1\): The diagonal element 1 "):
        mg.cholesky_inverse(mg.tensor([[[1.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]], dtype="float64"))


# torch 2.13: a = torch.tensor(A, dtype=torch.float64, requires_grad=True); P, L, U = torch.linalg.lu(a);
# (L.sum() + 2 * U.sum()).backward() -> a.grad
SINGULAR_LU = {
    "rank one": ([[1.0, 2.0], [2.0, 4.0]], [[math.nan, math.nan], [math.nan, math.nan]]),
    "wide rank one": ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]], [[math.nan, math.nan, 2.0], [math.nan, math.nan, 1.0]]),
    "zero column": ([[0.0, 1.0], [0.0, 2.0]], [[math.nan, 2.0], [math.nan, 2.0]]),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(SINGULAR_LU))
def test_lu_of_a_singular_matrix_differentiates_to_nan_as_pytorchs(name, device):
    # U has a zero pivot: PyTorch's backward solves by it with triangular solves (NaN); the package's
    # general solve raised NumPy's LinAlgError("Singular matrix") from backward and from jvp
    values, grad = SINGULAR_LU[name]
    a = mg.tensor(values, dtype="float64", device=device, requires_grad=True)
    _, low, up = mg.linalg.lu(a)
    (low.sum() + 2 * up.sum()).backward()
    got, grad = a.grad.cpu().numpy(), np.array(grad)
    # not finite where PyTorch's is NaN (here an entry may be -inf: the substitution's order), the rest equal
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(grad))
    np.testing.assert_array_equal(got[np.isfinite(got)], grad[np.isfinite(grad)])
    _, tangent = mg.func.jvp(lambda z: mg.linalg.lu(z)[2], (a.detach(),), (mg.ones_like(a.detach()),))
    assert np.isnan(tangent.cpu().numpy()).any()
