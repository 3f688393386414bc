"""More shape functions (``hstack`` and friends, ``atleast_*d``, ``block_diag``, ``diag_embed``,
``rot90``, ``broadcast_tensors``, ``narrow``, ``cartesian_prod``, ``combinations``, the triangle
index grids): values against NumPy/SciPy, gradients in both modes and to second order, the
strict device and the errors.  PyTorch's answers are in ``test_operators_vs_torch.py``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.linalg
from operator_checks import check_everywhere

import minigrad_ckpt as mg

rng = np.random.default_rng(13)


def test_stacks_and_atleast_match_numpy():
    a, b, v = rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), rng.standard_normal(3)
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        np.testing.assert_array_equal(getattr(mg, name)([mg.tensor(a), mg.tensor(b)]).numpy(),
                                      getattr(np, name)([a, b]), err_msg=name)
        np.testing.assert_array_equal(getattr(mg, name)([mg.tensor(v), mg.tensor(v)]).numpy(),
                                      getattr(np, name)([v, v]), err_msg=name)
    for n in (1, 2, 3):
        fn = getattr(mg, f"atleast_{n}d")
        for x in (np.array(2.0), v, a):
            assert fn(mg.tensor(x)).shape == getattr(np, f"atleast_{n}d")(x).shape
        assert isinstance(fn(mg.tensor(v), mg.tensor(a)), tuple)
    check_everywhere(lambda s, t: mg.hstack([s, t]), a, b)
    check_everywhere(lambda s, t: mg.column_stack([s, t]), v, a.T)


def test_block_diag_diag_embed_diagflat_rot90():
    a, b, c = np.array(2.0), rng.standard_normal(3), rng.standard_normal((2, 2))
    np.testing.assert_array_equal(mg.block_diag(mg.tensor(a), mg.tensor(b), mg.tensor(c)).numpy(),
                                  scipy.linalg.block_diag(a, b, c))
    x = rng.standard_normal((2, 3))
    want = np.zeros((2, 4, 4))
    for i in range(2):
        want[i] = np.diag(x[i], 1)
    np.testing.assert_array_equal(mg.diag_embed(mg.tensor(x), 1).numpy(), want)
    np.testing.assert_array_equal(mg.diag_embed(mg.tensor(x), 0, 0, 2).numpy(),
                                  np.moveaxis(np.stack([np.diag(r) for r in x]), (1, 2), (0, 2)))
    np.testing.assert_array_equal(mg.diagflat(mg.tensor(c), -1).numpy(), np.diagflat(c, -1))
    y = rng.standard_normal((2, 3, 4))
    for k in range(-2, 6):
        np.testing.assert_array_equal(mg.rot90(mg.tensor(y), k, (2, 0)).numpy(), np.rot90(y, k, (2, 0)))
    check_everywhere(lambda s, t, u: mg.block_diag(s, t, u), a, b, c)
    check_everywhere(lambda t: mg.diag_embed(t, -1, 0, 2), x)
    check_everywhere(lambda t: mg.rot90(t, 3, (1, 2)), y)


def test_broadcast_narrow_unflatten_movedim():
    a, b = rng.standard_normal((3, 1)), rng.standard_normal(4)
    for got, want in zip(mg.broadcast_tensors(mg.tensor(a), mg.tensor(b)), np.broadcast_arrays(a, b)):
        np.testing.assert_array_equal(got.numpy(), want)
    x = rng.standard_normal((2, 6))
    np.testing.assert_array_equal(mg.narrow(mg.tensor(x), 1, -4, 3).numpy(), x[:, 2:5])
    assert mg.unflatten(mg.tensor(x), 1, (3, -1)).shape == (2, 3, 2)
    assert mg.movedim(mg.tensor(x), 0, 1).shape == (6, 2)
    check_everywhere(lambda s, t: mg.broadcast_tensors(s, t)[0] * mg.broadcast_tensors(s, t)[1], a, b)
    check_everywhere(lambda t: mg.narrow(t, 1, 1, 4), x)


def test_products_combinations_and_triangle_indices():
    a, b = rng.standard_normal(2), rng.standard_normal(3)
    np.testing.assert_array_equal(mg.cartesian_prod(mg.tensor(a), mg.tensor(b)).numpy(),
                                  np.array(list(itertools.product(a, b))))
    x = rng.standard_normal(4)
    np.testing.assert_array_equal(mg.combinations(mg.tensor(x), 3).numpy(),
                                  np.array(list(itertools.combinations(x, 3))))
    np.testing.assert_array_equal(mg.combinations(mg.tensor(x), 2, with_replacement=True).numpy(),
                                  np.array(list(itertools.combinations_with_replacement(x, 2))))
    rows, cols = mg.tril_indices(4, k=1, m=3)                              # NumPy's: a pair
    assert [rows.tolist(), cols.tolist()] == [list(i) for i in np.tril_indices(4, 1, 3)]
    pair = mg.triu_indices(3, col=4, offset=1)                             # PyTorch's: one (2, N) tensor
    assert pair.tolist() == [list(i) for i in np.triu_indices(3, 1, 4)] and pair.dtype == mg.int64
    check_everywhere(lambda s, t: mg.cartesian_prod(s, t), a, b)
    check_everywhere(lambda t: mg.combinations(t, 2), x)


# torch 2.13: meshgrid(zeros(0), zeros(2), indexing="ij") -> two (0, 2) grids, "xy" of three (0,), (2,), (3,)
# -> (2, 0, 3) each; cartesian_prod(zeros(0), zeros(2)) -> (0, 2), of (2,), (0,), (3,) -> (0, 3). The
# engine took each grid's size on an axis as the largest of the vectors' (1 over a 0): ValueError.
_EMPTY_GRIDS = [((0, 2), "ij", (0, 2)), ((0, 2, 3), "xy", (2, 0, 3)), ((2, 0), "xy", (0, 2)),
                ((2, 3, 0), "ij", (2, 3, 0))]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lengths, indexing, shape", _EMPTY_GRIDS)
def test_meshgrid_and_cartesian_prod_of_an_empty_vector_are_empty(lengths, indexing, shape, dtype, device):
    vs = [mg.tensor(rng.standard_normal(n), dtype=dtype, device=device, requires_grad=True) for n in lengths]
    grids = mg.meshgrid(*vs, indexing=indexing)
    assert isinstance(grids, tuple) and all(g.shape == shape and g.dtype == dtype for g in grids)
    prod = mg.cartesian_prod(*vs)
    assert prod.shape == (0, len(lengths)) and prod.dtype == dtype and prod.device == vs[0].device
    grads = mg.grad(sum(g.sum() for g in grids) + prod.sum(), vs)
    assert [g.shape for g in grads] == [v.shape for v in vs]
    assert all(not g.numpy().any() and g.dtype == dtype for g in grads)
    jvp_out = mg.func.jvp(lambda *ts: mg.cartesian_prod(*ts), tuple(v.detach() for v in vs),
                          tuple(mg.ones_like(v) for v in vs))[1]
    assert jvp_out.shape == (0, len(lengths))


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match=r"tril_indices\(3, 3\) means"):
        mg.tril_indices(3, 3)
    with pytest.raises(TypeError, match="needs col="):
        mg.triu_indices(row=3)
    with pytest.raises(IndexError, match=r"start \(5\) \+ length \(2\) exceeds dimension size \(6\)\."):
        mg.narrow(mg.zeros(6), 0, 5, 2)
    with pytest.raises(ValueError, match=r"unflatten: Provided sizes \[4, -1\] don't multiply up to the size of "
                                         r"dim 1 \(6\)"):
        mg.unflatten(mg.zeros((2, 6)), 1, (4, -1))
    with pytest.raises(ValueError, match="expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"):
        mg.rot90(mg.zeros((2, 2)), 1, (0, 0))
    with pytest.raises(ValueError, match="block_diag: Input tensors must have 2 or fewer dimensions"):
        mg.block_diag(mg.zeros((1, 1, 1)))
    with pytest.raises(ValueError, match="combinations of a 1-D input"):
        mg.combinations(mg.zeros((2, 2)))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        mg.broadcast_tensors(mg.zeros(2), mg.zeros(3))


def test_splits_unfold_and_sum_to_size():
    x = rng.standard_normal((4, 4, 2))
    for got, want in zip(mg.tensor_split(mg.tensor(x), 3, 1), np.array_split(x, 3, 1)):
        np.testing.assert_array_equal(got.numpy(), want)
    for name in ("hsplit", "vsplit", "dsplit"):
        for got, want in zip(getattr(mg, name)(mg.tensor(x), 2), getattr(np, name)(x, 2)):
            np.testing.assert_array_equal(got.numpy(), want)
    y = rng.standard_normal((3, 7))
    np.testing.assert_array_equal(mg.tensor(y).unfold(1, 3, 2).numpy(),
                                  np.lib.stride_tricks.sliding_window_view(y, 3, axis=1)[:, ::2])
    assert mg.tensor(y).sum_to_size(1, 7).shape == (1, 7)
    check_everywhere(lambda t: t.unfold(1, 3, 2), y)
    check_everywhere(lambda t: mg.tensor_split(t, [1, 3], 1)[1], x)
    with pytest.raises(ValueError, match="hsplit attempted to split along dimension 1, but the size of the "
                                         "dimension 4 is not divisible by the split_size 3"):
        mg.hsplit(mg.tensor(x), 3)
    with pytest.raises(ValueError, match="maximum size for tensor at dimension 1 is 7 but size is 8"):
        mg.tensor(y).unfold(1, 8, 1)


def test_block_diag_promotes_as_pytorch():
    # the blocks' common dtype is PyTorch's promotion (a float beside an integer keeps the float's
    # width), not NumPy's (float32 with int64 was float64); values from torch.block_diag
    f32, i64 = mg.ones(1, 1), mg.tensor([[3, 4]])
    assert mg.block_diag(f32, i64).dtype == mg.float32
    assert mg.block_diag(mg.ones(1, 1, dtype=mg.float16), mg.tensor([[3]])).dtype == mg.float16
    assert mg.block_diag(mg.tensor([[1]], dtype=mg.uint8), mg.tensor([[True]])).dtype == mg.uint8
    assert mg.block_diag(mg.tensor([[1]], dtype=mg.uint8), mg.tensor([[1]], dtype=mg.int8)).dtype == mg.int16
    np.testing.assert_array_equal(mg.block_diag(f32, i64).numpy(), [[1, 0, 0], [0, 3, 4]])
