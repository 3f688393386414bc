"""LU of non-square matrices (with and without pivoting) and the LDL^T factorization, against
PyTorch's results (``tests/data/make_torch_factorizations.py``, made offline) and their meaning:
the factors multiply back to the input, LAPACK's pivot format, empty matrices, the seams
(forward mode, transforms, float32, the strict device)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

L = mg.linalg
FIXTURE = np.load(Path(__file__).parent / "data" / "torch_factorizations.npz")
RNG = np.random.default_rng(11)


def _cases(kind: str) -> list[str]:
    return sorted({k.split(".")[1] for k in FIXTURE.files if k.startswith(kind + ".")})


def _get(kind: str, name: str, key: str) -> np.ndarray:
    return FIXTURE[f"{kind}.{name}.{key}"]


# ---- LU ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", _cases("lu"))
def test_lu_of_any_shape_matches_pytorch(name):
    a = mg.tensor(_get("lu", name, "a"), requires_grad=True)
    p, low, up = L.lu(a)
    for got, key in ((p, "P"), (low, "L"), (up, "U")):
        assert got.shape == _get("lu", name, key).shape
        np.testing.assert_allclose(got.numpy(), _get("lu", name, key), rtol=1e-12, atol=1e-13)
    lu_, piv = L.lu_factor(a)
    np.testing.assert_allclose(lu_.numpy(), _get("lu", name, "LU"), rtol=1e-12, atol=1e-13)
    assert piv.dtype == np.int32
    np.testing.assert_array_equal(piv.numpy(), _get("lu", name, "pivots"))
    ((low * mg.tensor(_get("lu", name, "cl"))).sum() + (up * mg.tensor(_get("lu", name, "cu"))).sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), _get("lu", name, "ga"), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 2), (2, 2, 5)])
def test_unpivoted_lu_is_doolittle(shape):
    a = RNG.uniform(-1, 1, shape) + 4 * np.eye(*shape[-2:])
    p, low, up = L.lu(mg.tensor(a), pivot=False)
    assert p.shape == (0,)  # PyTorch's empty P
    k = min(shape[-2:])
    assert low.shape == shape[:-1] + (k,) and up.shape == shape[:-2] + (k, shape[-1])
    np.testing.assert_allclose((low @ up).numpy(), a, atol=1e-13)
    np.testing.assert_array_equal(np.diagonal(low.numpy(), axis1=-2, axis2=-1), 1.0)
    np.testing.assert_array_equal(np.triu(low.numpy(), 1), 0.0)
    np.testing.assert_array_equal(np.tril(up.numpy(), -1), 0.0)
    lu_, piv = L.lu_factor(mg.tensor(a), pivot=False)
    np.testing.assert_array_equal(piv.numpy(), np.broadcast_to(np.arange(1, k + 1), shape[:-2] + (k,)))
    packed = lu_.numpy()  # L below the diagonal, U on and above it
    np.testing.assert_array_equal(np.tril(packed[..., :, :k], -1), np.tril(low.numpy(), -1))
    np.testing.assert_array_equal(np.triu(packed[..., :k, :]), up.numpy())
    if shape[-2] == shape[-1]:  # lu_solve takes the unpivoted factors too
        x = L.lu_solve(lu_, piv, mg.tensor(np.ones(shape[:-1] + (2,))))
        np.testing.assert_allclose(a @ x.numpy(), 1.0, atol=1e-12)


def test_unpivoted_lu_stops_at_an_exact_zero_pivot_only_where_it_divides():
    with pytest.raises(np.linalg.LinAlgError, match="pivot 1 is exactly zero"):
        L.lu(mg.tensor([[1.0, 2.0, 0.0], [2.0, 4.0, 1.0], [0.0, 1.0, 1.0]]), pivot=False)
    # a zero last pivot divides nothing: the factorization of a singular matrix exists
    p, low, up = L.lu(mg.tensor([[1.0, 2.0], [2.0, 4.0]]), pivot=False)
    np.testing.assert_array_equal(up.numpy(), [[1.0, 2.0], [0.0, 0.0]])


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 4), (0, 3, 3)])
def test_lu_of_empty_matrices(shape):
    a = mg.tensor(np.zeros(shape), requires_grad=True)
    m, n = shape[-2:]
    k = min(m, n)
    for pivot in (True, False):
        p, low, up = L.lu(a, pivot=pivot)
        assert p.shape == (shape[:-2] + (m, m) if pivot else (0,))
        assert low.shape == shape[:-2] + (m, k) and up.shape == shape[:-2] + (k, n)
        lu_, piv = L.lu_factor(a, pivot=pivot)
        assert lu_.shape == shape and piv.shape == shape[:-2] + (k,)
        (g,) = mg.grad(low.sum() + up.sum(), [a])
        assert g.shape == shape


@pytest.mark.parametrize("shape", [(3, 2), (2, 3)])
def test_non_square_lu_at_the_seams(shape):
    a = RNG.uniform(-1, 1, (2,) + shape) + 3 * np.eye(*shape)
    f = lambda x: L.lu(x).L.sum() * 2 + (L.lu(x).U ** 2).sum()  # noqa: E731
    x = mg.tensor(a, requires_grad=True)
    g = mg.func.grad(f)(x)
    (g_tape,) = mg.grad(f(x), [x])
    np.testing.assert_allclose(g.numpy(), g_tape.numpy(), rtol=1e-14)
    h_rev, h_fwd = mg.func.jacrev(mg.func.grad(f))(x), mg.func.jacfwd(mg.func.grad(f))(x)
    np.testing.assert_allclose(h_fwd.numpy(), h_rev.numpy(), rtol=1e-10, atol=1e-12)
    t = mg.tensor(RNG.standard_normal(a.shape))
    _, tangent = mg.func.jvp(f, (x,), (t,))
    np.testing.assert_allclose(tangent.item(), float((g.numpy() * t.numpy()).sum()), rtol=1e-10)
    xs = mg.tensor(a, device="strict", requires_grad=True)
    np.testing.assert_allclose(mg.grad(f(xs), [xs])[0].numpy(), g.numpy(), rtol=1e-12)
    x32 = mg.tensor(a.astype(np.float32), requires_grad=True)
    (g32,) = mg.grad(f(x32), [x32])
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32.numpy(), g.numpy(), rtol=1e-4, atol=1e-4)
    assert gradcheck(lambda x: L.lu_factor(x, pivot=False).LU, x, modes=("rev", "fwd"))
