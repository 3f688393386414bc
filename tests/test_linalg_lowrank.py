"""``mg.svd_lowrank`` and ``mg.pca_lowrank``: PyTorch's randomized SVD and PCA (Halko et al.).

Checked against exact facts, not another library's draws: a rank-k matrix comes back exactly
(to rounding) once q >= k; the singular values of a matrix with a decaying spectrum are
``mg.linalg.svd``'s top q after the subspace iterations; U and V have orthonormal columns;
``pca_lowrank`` is ``svd_lowrank`` of the column-centred matrix.  With a fixed seed the function is
deterministic, so its gradients are checked against central differences, and replay under a
checkpoint and ``mg.func.grad`` must give the plain backward's numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing.gradcheck import gradcheck


def _low_rank(rng, m, n, k, batch=(), complex_=False):
    a = rng.standard_normal(batch + (m, k)) @ rng.standard_normal(batch + (k, n))
    if complex_:
        a = a + 1j * (rng.standard_normal(batch + (m, k)) @ rng.standard_normal(batch + (k, n)))
    return a


def _rebuilt(u, s, v):
    """``U diag(S) V^H`` as a NumPy array."""
    u, s, v = u.numpy(), s.numpy(), v.numpy()
    return (u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))


def _orthonormal_error(x):
    x = x.numpy()
    gram = np.conj(np.swapaxes(x, -1, -2)) @ x
    return np.abs(gram - np.eye(x.shape[-1])).max()


@pytest.mark.parametrize("m, n, k, q", [(20, 12, 3, 3), (20, 12, 3, 5), (12, 20, 3, 5), (30, 30, 6, 6)])
def test_a_rank_k_matrix_is_rebuilt_once_q_reaches_k(m, n, k, q):
    a = _low_rank(np.random.default_rng(0), m, n, k)
    mg.manual_seed(0)
    u, s, v = mg.svd_lowrank(mg.tensor(a), q=q)
    assert u.shape == (m, min(q, m, n)) and s.shape == (min(q, m, n),) and v.shape == (n, min(q, m, n))
    assert np.abs(_rebuilt(u, s, v) - a).max() < 1e-12
    assert _orthonormal_error(u) < 1e-12 and _orthonormal_error(v) < 1e-12
    assert np.all(np.diff(s.numpy()) <= 0)  # in decreasing order, as linalg.svd's


def test_decaying_spectrum_top_singular_values_sharpen_with_iterations():
    rng = np.random.default_rng(1)
    m, n = 40, 30
    left, _ = np.linalg.qr(rng.standard_normal((m, n)))
    right, _ = np.linalg.qr(rng.standard_normal((n, n)))
    a = mg.tensor((left * 0.5 ** np.arange(n)) @ right.T)
    top = mg.linalg.svdvals(a).numpy()[:6]
    errors = []
    for niter in (0, 2, 4):
        mg.manual_seed(1)
        s = mg.svd_lowrank(a, q=6, niter=niter)[1].numpy()
        errors.append(np.abs(s - top)[:4].max() / top[0])
    assert errors[0] > errors[1] > errors[2] and errors[1] < 1e-9 and errors[2] < 1e-14


def test_batched_input_each_matrix_rebuilt():
    a = _low_rank(np.random.default_rng(2), 9, 7, 2, batch=(2, 3))
    u, s, v = mg.svd_lowrank(mg.tensor(a), q=3)
    assert u.shape == (2, 3, 9, 3) and s.shape == (2, 3, 3) and v.shape == (2, 3, 7, 3)
    assert np.abs(_rebuilt(u, s, v) - a).max() < 1e-12
    assert _orthonormal_error(u) < 1e-12 and _orthonormal_error(v) < 1e-12


@pytest.mark.parametrize("wide", [False, True])
def test_the_mean_m_is_taken_away_broadcast(wide):
    rng = np.random.default_rng(3)
    low, row = _low_rank(rng, 20, 12, 3), rng.standard_normal((12,))
    a, mean, expected = low + row, row, low
    if wide:  # the mean of a wide matrix's columns: a (m, 1) column broadcast
        a, mean, expected = a.T, row[:, None], low.T
    u, s, v = mg.svd_lowrank(mg.tensor(a), q=3, M=mg.tensor(mean))
    assert np.abs(_rebuilt(u, s, v) - expected).max() < 1e-12


def test_pca_lowrank_is_svd_lowrank_of_the_centred_matrix():
    x = np.random.default_rng(4).standard_normal((2, 15, 6))
    mg.manual_seed(5)
    pca = mg.pca_lowrank(mg.tensor(x), q=4)
    mg.manual_seed(5)
    svd = mg.svd_lowrank(mg.tensor(x - x.mean(axis=-2, keepdims=True)), q=4)
    for got, expected in zip(pca, svd):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=0, atol=1e-13)
    mg.manual_seed(5)
    raw = mg.pca_lowrank(mg.tensor(x), q=4, center=False)
    mg.manual_seed(5)
    for got, expected in zip(raw, mg.svd_lowrank(mg.tensor(x), q=4)):
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_pca_lowrank_default_q_is_min_of_6_m_n():
    rng = np.random.default_rng(6)
    assert mg.pca_lowrank(mg.tensor(rng.standard_normal((10, 8))))[1].shape == (6,)
    assert mg.pca_lowrank(mg.tensor(rng.standard_normal((10, 4))))[1].shape == (4,)
    assert mg.pca_lowrank(mg.tensor(rng.standard_normal((3, 8))))[1].shape == (3,)


def _seeded(fn, seed=7):
    def run(*args):
        mg.manual_seed(seed)
        return fn(*args)
    return run


def _rebuild(a, m=None):
    u, s, v = mg.svd_lowrank(a, q=3, niter=2, M=m)
    return (u * s[..., None, :]) @ v.mH


def test_gradients_through_the_reconstruction_match_central_differences():
    rng = np.random.default_rng(8)
    a = mg.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    m = mg.tensor(rng.standard_normal((5,)), requires_grad=True)
    assert gradcheck(_seeded(_rebuild), (a, m))  # reverse and forward mode
    assert gradcheck(_seeded(_rebuild), (a,), order=2, modes=("rev",))
    c = mg.tensor(rng.standard_normal((6, 4)) + 1j * rng.standard_normal((6, 4)), requires_grad=True)
    assert gradcheck(_seeded(lambda x: _rebuild(x).abs()), (c,))
    wide = mg.tensor(rng.standard_normal((4, 6)), requires_grad=True)
    assert gradcheck(_seeded(lambda x: mg.svd_lowrank(x, q=2)[1]), (wide,), modes=("rev",))
    assert gradcheck(_seeded(lambda x: mg.pca_lowrank(x, q=2)[1]), (a,), modes=("rev",))


def test_same_seed_same_bits_and_another_seed_another_sketch():
    a = mg.tensor(np.random.default_rng(9).standard_normal((12, 10)))
    first, again, other = (_seeded(mg.svd_lowrank, seed)(a) for seed in (3, 3, 4))
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    assert not np.array_equal(first[1].numpy(), other[1].numpy())  # a full-rank matrix: q=6 is approximate


def _loss(a):
    u, s, v = mg.svd_lowrank(a, q=3)
    return (((u * s[..., None, :]) @ v.mH) ** 2).sum() + s.sum()


def test_under_checkpoint_and_func_grad_the_plain_backward_numbers():
    x = np.random.default_rng(10).standard_normal((2, 8, 6))
    a = mg.tensor(x, requires_grad=True)
    mg.manual_seed(11)
    _loss(a).backward()
    plain = a.grad.numpy()

    b = mg.tensor(x, requires_grad=True)
    mg.manual_seed(11)
    checkpoint(_loss, b).backward()  # replayed from the kept sketch: bit for bit
    np.testing.assert_array_equal(b.grad.numpy(), plain)

    mg.manual_seed(11)
    np.testing.assert_array_equal(mg.func.grad(_loss)(mg.tensor(x)).numpy(), plain)


def test_float32_stays_float32():
    a = _low_rank(np.random.default_rng(12), 20, 12, 3).astype(np.float32)
    u, s, v = mg.svd_lowrank(mg.tensor(a), q=4)
    assert (u.dtype, s.dtype, v.dtype) == (mg.float32,) * 3
    assert np.abs(_rebuilt(u, s, v) - a).max() < 1e-5 * np.abs(a).max()
    _, s, _ = mg.pca_lowrank(mg.tensor(a), q=3)
    assert s.dtype == mg.float32


def test_complex_input():
    a = _low_rank(np.random.default_rng(13), 10, 7, 2, complex_=True)
    u, s, v = mg.svd_lowrank(mg.tensor(a), q=4)
    assert (u.dtype, s.dtype, v.dtype) == (mg.complex128, mg.float64, mg.complex128)
    assert np.abs(_rebuilt(u, s, v) - a).max() < 1e-12
    assert _orthonormal_error(u) < 1e-12 and _orthonormal_error(v) < 1e-12


@pytest.mark.parametrize("device, dtype", [("strict", "float64"), ("strict-f32", "float32")])
def test_on_the_strict_device_the_cpu_numbers(device, dtype):
    x = np.random.default_rng(14).standard_normal((9, 6)).astype(dtype)
    results = {}
    for dev in ("cpu", device):
        a = mg.tensor(x, device=dev, requires_grad=True)
        mg.manual_seed(15)
        u, s, v = mg.pca_lowrank(a, q=3)
        (u.abs().sum() + s.sum() + v.abs().sum()).backward()
        results[dev] = [t.to("cpu").numpy() for t in (u, s, v, a.grad)]
    for got, expected in zip(results[device], results["cpu"]):
        np.testing.assert_array_equal(got, expected)


def test_empty_shapes_and_q_past_the_matrix():
    assert [t.shape for t in mg.svd_lowrank(mg.zeros(5, 3), q=0)] == [(5, 0), (0,), (3, 0)]
    assert [t.shape for t in mg.svd_lowrank(mg.zeros(0, 3))] == [(0, 0), (0,), (3, 0)]
    assert [t.shape for t in mg.svd_lowrank(mg.zeros(0, 5, 3))] == [(0, 5, 3), (0, 3), (0, 3, 3)]
    assert [t.shape for t in mg.svd_lowrank(mg.randn(3, 5), q=10)] == [(3, 3), (3,), (5, 3)]


def test_svd_lowrank_defaults_and_what_it_lets_through():
    a = mg.randn(8, 5, dtype=mg.float64)
    for kwargs in ({"q": None}, {"niter": None}, {"niter": -1}):  # PyTorch's: None is the default, -1 no iteration
        assert mg.svd_lowrank(a, **kwargs)[1].shape == (5,)


def test_refusals_in_pytorchs_words():
    a = mg.randn(5, 3, dtype=mg.float64)
    with pytest.raises(ValueError, match=r"q\(=4\) must be non-negative integer and not greater than min\(m, n\)=3"):
        mg.pca_lowrank(a, q=4)
    with pytest.raises(ValueError, match=r"q\(=-1\) must be non-negative integer"):
        mg.pca_lowrank(a, q=-1)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        mg.pca_lowrank(a, niter=-1)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1: \\[3, -1\\]"):
        mg.svd_lowrank(a, q=-1)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        mg.svd_lowrank(a, niter=1.5)
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 1\)"):
        mg.svd_lowrank(mg.randn(5))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: long int != float"):
        mg.svd_lowrank(mg.randint(0, 5, (5, 3)))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: double != float"):
        mg.svd_lowrank(a.float(), M=mg.randn(3, dtype=mg.float64))
    with pytest.raises(RuntimeError, match="must match the existing size \\(4\\) at non-singleton dimension 1"):
        mg.svd_lowrank(a, M=mg.randn(4, dtype=mg.float64))
    with pytest.raises(RuntimeError, match="mean\\(\\)"):
        mg.pca_lowrank(mg.randint(0, 5, (5, 3)))


def test_vmap_refuses_the_draw_unless_told_and_same_randomness_is_the_batched_call():
    x = mg.tensor(np.random.default_rng(16).standard_normal((3, 6, 4)))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        mg.func.vmap(lambda a: mg.svd_lowrank(a, q=2)[1])(x)
    mg.manual_seed(17)
    same = mg.func.vmap(lambda a: mg.svd_lowrank(a, q=2)[1], randomness="same")(x)
    mg.manual_seed(17)  # the batched call shares one sketch among its matrices, as PyTorch's
    np.testing.assert_array_equal(same.numpy(), mg.svd_lowrank(x, q=2)[1].numpy())
