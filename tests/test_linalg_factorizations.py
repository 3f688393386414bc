"""LU of non-square matrices (with and without pivoting) and the LDL^T factorization, against
PyTorch's results (``tests/data/make_torch_factorizations.py``, made offline) and their meaning:
the factors multiply back to the input, LAPACK's pivot format, empty matrices, the seams
(forward mode, transforms, float32, the strict device)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import gradcheck, gradgradcheck
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


# ---- LDL^T (Bunch-Kaufman) ---------------------------------------------------------------------

def _symmetric_with_blocks(blocks, batch=(), seed=0):
    """Symmetric matrices whose pivot choices are far from every threshold: a 1x1 block is a
    diagonal entry of size 3..4, a 2x2 block a pair of small diagonal entries (|.| <= 0.1) joined
    by an off-diagonal entry of size 3..4, the rest in [-0.3, 0.3]; then a random symmetric
    permutation (so rows are swapped), and noise in the upper triangle (which is not read)."""
    rng = np.random.default_rng(seed)
    n = sum(blocks)
    mats = []
    for _ in range(int(np.prod(batch))):
        s = rng.uniform(-0.3, 0.3, (n, n))
        s = (s + s.T) / 2
        k = 0
        for size in blocks:
            big = rng.choice([-1, 1]) * rng.uniform(3, 4)
            if size == 1:
                s[k, k] = big
            else:
                s[k, k], s[k + 1, k + 1] = rng.uniform(-0.1, 0.1, 2)
                s[k, k + 1] = s[k + 1, k] = big
            k += size
        p = rng.permutation(n)
        mats.append(np.tril(s[p][:, p]) + np.triu(rng.standard_normal((n, n)), 1))
    return np.asarray(mats).reshape(tuple(batch) + (n, n))


def _symmetrized(a):
    return np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)


def _expand(ld, pivots):
    """``(P, L, D)`` from LAPACK's compact format, one matrix, by its definition:
    ``L = P1 L1 P2 L2 ...`` with ``P_k`` the swap of step ``k``."""
    n = ld.shape[-1]
    full_l, perm, d = np.eye(n), np.eye(n), np.zeros((n, n))
    k = 0
    while k < n:
        size = 1 if pivots[k] > 0 else 2
        swap = np.eye(n)
        kk, kp = k + size - 1, abs(int(pivots[k])) - 1
        swap[[kk, kp]] = swap[[kp, kk]]
        step = np.eye(n)
        step[k + size:, k:k + size] = ld[k + size:, k:k + size]
        d[k:k + size, k:k + size] = np.tril(ld[k:k + size, k:k + size])
        full_l, perm = full_l @ swap @ step, perm @ swap
        k += size
    return perm, full_l, d + np.tril(d, -1).T


@pytest.mark.parametrize("name", _cases("ldl"))
def test_ldl_factor_matches_pytorch_and_solves(name):
    a = _get("ldl", name, "a")
    ld, piv, info = L.ldl_factor_ex(mg.tensor(a))
    assert piv.dtype == np.int32 and info.dtype == np.int32
    np.testing.assert_array_equal(piv.numpy(), _get("ldl", name, "pivots"))
    np.testing.assert_array_equal(info.numpy(), _get("ldl", name, "info"))
    np.testing.assert_allclose(ld.numpy(), _get("ldl", name, "LD"), rtol=1e-13, atol=1e-14)
    if _get("ldl", name, "info").any():
        with pytest.raises(np.linalg.LinAlgError, match="D is singular"):
            L.ldl_factor(mg.tensor(a))
        with pytest.raises(np.linalg.LinAlgError, match="D is singular"):
            L.ldl_factor_ex(mg.tensor(a), check_errors=True)
    if f"ldl.{name}.x" in FIXTURE.files:  # (PyTorch's solves with a non-finite A are not compared)
        x = L.ldl_solve(ld, piv, mg.tensor(_get("ldl", name, "b")))
        np.testing.assert_allclose(x.numpy(), _get("ldl", name, "x"), rtol=1e-11, atol=1e-12)
        if not np.iscomplexobj(a):
            ld2, piv2 = L.ldl_factor(mg.tensor(a), hermitian=True)  # a real symmetric matrix is Hermitian
            np.testing.assert_array_equal(ld2.numpy(), ld.numpy())


@pytest.mark.parametrize("blocks", [(1, 1, 1, 1), (2, 1, 2), (1, 2, 2), (2, 2), (1,)])
def test_ldl_factor_means_what_lapack_says(blocks):
    a = _symmetric_with_blocks(blocks, (3,), seed=len(blocks))
    ld, piv = L.ldl_factor(mg.tensor(a))
    assert np.abs(np.triu(ld.numpy(), 1)).max(initial=0) == 0
    assert sorted(int(s) for s in np.sum(piv.numpy() < 0, axis=-1)) == [2 * blocks.count(2)] * 3
    for m, f, p in zip(a, ld.numpy(), piv.numpy()):
        perm, low, d = _expand(f, p)
        np.testing.assert_allclose(low @ d @ low.T, _symmetrized(m), atol=1e-13)
        assert np.abs(np.tril(np.linalg.inv(perm) @ low, -1)).max(initial=0) <= 1 / 0.6  # bounded multipliers


def test_ldl_factor_agrees_with_scipy():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a = _symmetric_with_blocks((2, 1, 2, 1), seed=4)
    ld, piv = L.ldl_factor(mg.tensor(a))
    lu_, d, _ = scipy_linalg.ldl(_symmetrized(a), lower=True)
    perm, low, d_ours = _expand(ld.numpy(), piv.numpy())
    np.testing.assert_allclose(d_ours, d, atol=1e-14)
    np.testing.assert_allclose(low, lu_, atol=1e-14)


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 2, 2)])
def test_ldl_of_empty_matrices(shape):
    a = mg.tensor(np.zeros(shape), requires_grad=True)
    ld, piv, info = L.ldl_factor_ex(a)
    assert ld.shape == shape and piv.shape == shape[:-1] and info.shape == shape[:-2]
    b = mg.tensor(np.zeros(shape[:-1] + (2,)), requires_grad=True)
    x = L.ldl_solve(ld, piv, b)
    assert x.shape == b.shape
    ga, gb = mg.grad(x.sum() + ld.sum(), [a, b])
    assert ga.shape == shape and gb.shape == b.shape


LDL_CALLS = {
    "factor": lambda x, b: L.ldl_factor(x).LD,
    "solve": lambda x, b: L.ldl_solve(*L.ldl_factor(x), b),
    "solve_broadcast": lambda x, b: L.ldl_solve(*L.ldl_factor(x[0]), b),
    "solve_in_B": lambda x, b: L.ldl_solve(*L.ldl_factor(mg.tensor(FIXED.astype(x.dtype), device=x.device)), b * b),
}
FIXED = _symmetric_with_blocks((1, 2, 2), seed=2)


def _ldl_inputs(dtype="float64", device="cpu"):
    a = _symmetric_with_blocks((2, 1, 2), (2,), seed=7)
    b = np.random.default_rng(8).standard_normal((2, 5, 2))
    return (mg.tensor(a.astype(dtype), device=device, requires_grad=True),
            mg.tensor(b.astype(dtype), device=device, requires_grad=True))


@pytest.mark.parametrize("name", sorted(LDL_CALLS))
def test_ldl_derivatives_both_modes_and_second_order(name):
    assert gradcheck(LDL_CALLS[name], _ldl_inputs(), modes=("rev", "fwd"))
    assert gradgradcheck(LDL_CALLS[name], _ldl_inputs())


@pytest.mark.parametrize("name", sorted(LDL_CALLS))
def test_ldl_float32_and_the_strict_device(name):
    x, b = _ldl_inputs()
    out = LDL_CALLS[name](x, b)
    grads = mg.grad(out.sum(), [x, b], allow_unused=True)
    xs, bs = _ldl_inputs(device="strict")
    outs = LDL_CALLS[name](xs, bs)
    np.testing.assert_array_equal(outs.numpy(), out.numpy())
    for g, gs in zip(grads, mg.grad(outs.sum(), [xs, bs], allow_unused=True)):
        assert (g is None) == (gs is None)
        if g is not None:
            np.testing.assert_allclose(gs.numpy(), g.numpy(), rtol=1e-12, atol=1e-12)
    x32, b32 = _ldl_inputs("float32")
    out32 = LDL_CALLS[name](x32, b32)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32.numpy(), out.numpy(), rtol=1e-4, atol=1e-4)
    for g32 in mg.grad(out32.sum(), [x32, b32], allow_unused=True):
        assert g32 is None or g32.dtype == np.float32


def test_ldl_of_complex_symmetric_matrices_derivatives():
    # A^T = A (hermitian=False): every step is holomorphic, so the real derivation carries over
    a = _symmetric_with_blocks((2, 1, 2), (2,), seed=12) * np.exp(0.4j)
    b = np.random.default_rng(13).standard_normal((2, 5, 2)) * (1 - 0.5j)
    x, rhs = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    assert gradcheck(lambda x: L.ldl_factor(x).LD, x, modes=("rev", "fwd"))
    assert gradcheck(lambda x, b: L.ldl_solve(*L.ldl_factor(x), b), (x, rhs), modes=("rev", "fwd"))
    assert gradgradcheck(lambda x, b: L.ldl_solve(*L.ldl_factor(x), b), (x, rhs))
    sym = _symmetrized(a)
    np.testing.assert_allclose(L.ldl_solve(*L.ldl_factor(x), rhs).numpy(), np.linalg.solve(sym, b), atol=1e-13)


def test_ldl_under_transforms_and_checkpointing():
    x, b = _ldl_inputs()
    f = lambda x: (L.ldl_solve(*L.ldl_factor(x), b.detach()) ** 2).sum()  # noqa: E731
    (g_tape,) = mg.grad(f(x), [x])
    np.testing.assert_allclose(mg.func.grad(f)(x).numpy(), g_tape.numpy(), rtol=1e-13)
    h_rev, h_fwd = mg.func.jacrev(mg.func.grad(f))(x), mg.func.jacfwd(mg.func.grad(f))(x)
    np.testing.assert_allclose(h_fwd.numpy(), h_rev.numpy(), rtol=1e-9, atol=1e-11)
    (g_ckpt,) = mg.grad(checkpoint(f, x), [x])
    np.testing.assert_array_equal(g_ckpt.numpy(), g_tape.numpy())


def test_ldl_solve_equals_the_dense_solve_and_checks_its_arguments():
    a = _symmetric_with_blocks((1, 2, 1), (2,), seed=9)
    ld, piv = L.ldl_factor(mg.tensor(a))
    b = np.random.default_rng(1).standard_normal((3, 2, 4, 3))  # batch broadcast against (2,)
    np.testing.assert_allclose(L.ldl_solve(ld, piv, mg.tensor(b)).numpy(),
                               np.linalg.solve(_symmetrized(a), b), rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match="do not fit"):
        L.ldl_solve(ld, piv[..., :3], mg.tensor(b))
    with pytest.raises(ValueError, match="not LAPACK sytrf's"):
        L.ldl_solve(ld[0], mg.tensor(np.array([1, -3, 3, 4], dtype=np.int32)), mg.tensor(b[0, 0]))
    with pytest.raises(ValueError, match="not LAPACK sytrf's"):
        L.ldl_solve(ld[0], mg.tensor(np.array([2, 1, 3, 4], dtype=np.int32)), mg.tensor(b[0, 0]))
    with pytest.raises(ValueError, match="B must be"):
        L.ldl_solve(ld, piv, mg.ones(2, 3, 1, dtype="float64"))
    with pytest.raises(ValueError, match="square"):
        L.ldl_factor(mg.ones(2, 3))
    with pytest.raises(NotImplementedError, match="hermitian=True with complex"):
        L.ldl_factor(mg.tensor(np.eye(2) * 1j), hermitian=True)
    with pytest.raises(TypeError, match="floating"):
        L.ldl_factor(mg.tensor(np.eye(2, dtype=np.int64)))


def test_ldl_with_nan_follows_reference_lapack():
    # A NaN pivot ends its column as a zero one does (info = 1) and the factorization goes on:
    # reference LAPACK's dsytf2 (SciPy's dsytrf gives these pivots too).  MKL, under PyTorch,
    # has no NaN check and swaps in row 3 instead -- LAPACK builds differ at NaN (docs/ops.md).
    a = mg.tensor([[np.nan, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 2.0, -3.0]], dtype="float64")
    ld, piv, info = L.ldl_factor_ex(a)
    np.testing.assert_array_equal(piv.numpy(), [1, 3, 3])
    assert info.item() == 1
    np.testing.assert_allclose(ld.numpy(), [[np.nan, 0, 0], [0, -3, 0], [0.5, -2 / 3, 7 / 3]], rtol=1e-15)
