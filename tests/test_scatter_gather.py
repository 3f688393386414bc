"""PyTorch's gather/scatter family (``mg.gather``, ``mg.scatter``, ``mg.scatter_reduce``,
``mg.index_*``, ``mg.masked_*``, ``mg.put``, ``mg.nonzero``): values against NumPy loops,
gradients in both modes and to second order, the strict device, the methods and the errors.
PyTorch's own answers for the same calls are in ``test_operators_vs_torch.py``."""

from __future__ import annotations

import numpy as np
import pytest
from operator_checks import check_everywhere

import minigrad_ckpt as mg

rng = np.random.default_rng(3)


def test_gather_reads_along_a_dim():
    x = rng.standard_normal((3, 4))
    i = np.array([[0, 3], [1, 1], [2, 0]])
    assert np.array_equal(mg.gather(mg.tensor(x), 1, i).numpy(), np.take_along_axis(x, i, 1))
    assert mg.gather(mg.tensor(x), 0, np.zeros((0, 4), int)).shape == (0, 4)
    check_everywhere(lambda t, i: mg.gather(t, 1, i), x, i)


def _scatter_loop(x, dim, index, src, combine):
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] = combine(out[tuple(target)], src[pos])
    return out


def test_scatter_writes_and_scatter_add_accumulates():
    x, s = rng.standard_normal((5, 3)), rng.standard_normal((6, 4))
    i = rng.integers(0, 5, (6, 3))
    want = _scatter_loop(x, 0, i, s, lambda old, new: old + new)
    assert np.allclose(mg.scatter_add(mg.tensor(x), 0, i, s).numpy(), want)
    last = _scatter_loop(x, 0, i, s, lambda old, new: new)  # the last write wins
    assert np.array_equal(mg.scatter(mg.tensor(x), 0, i, mg.tensor(s)).numpy(), last)
    assert np.array_equal(mg.scatter(mg.tensor(x), 0, i, value=2.0).numpy(),
                          _scatter_loop(x, 0, i, np.full(i.shape, 2.0), lambda old, new: new))
    check_everywhere(lambda t, i, u: mg.scatter_add(t, 0, i, u), x, i, s)
    check_everywhere(lambda t, i, u: mg.scatter(t, 0, i, u), x, i, s)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_a_loop_and_differentiates(reduce, include_self):
    x = rng.permutation(12).reshape(4, 3) * 0.3 + 0.5
    s = rng.permutation(18).reshape(6, 3) * 0.2 - 1.5
    i = rng.integers(0, 4, (6, 3))
    lists = {pos: ([x[pos]] if include_self else []) for pos in np.ndindex(*x.shape)}
    for pos in np.ndindex(*i.shape):
        lists[(i[pos], pos[1])].append(s[pos])
    fold = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    hit = np.zeros(x.shape, bool)
    for pos in np.ndindex(*i.shape):
        hit[i[pos], pos[1]] = True
    want = np.where(hit, np.array([[fold(lists[(a, b)]) if lists[(a, b)] else 0.0 for b in range(3)]
                                   for a in range(4)]), x)
    got = mg.scatter_reduce(mg.tensor(x), 0, i, mg.tensor(s), reduce, include_self=include_self)
    assert np.allclose(got.numpy(), want)
    check_everywhere(lambda t, i, u: mg.scatter_reduce(t, 0, i, u, reduce, include_self=include_self), x, i, s)


def test_scatter_reduce_shares_a_tie_and_handles_a_zero_product():
    x = mg.tensor([1.0, 2.0, 0.0], dtype="float64", requires_grad=True)
    s = mg.tensor([1.0, 1.0, 3.0], dtype="float64", requires_grad=True)
    out = mg.scatter_reduce(x, 0, [0, 0, 2], s, "amax")
    out.sum().backward()
    assert x.grad.tolist() == [1 / 3, 1.0, 0.0] and s.grad.tolist() == [1 / 3, 1 / 3, 1.0]
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    s = mg.tensor([0.0, 4.0], requires_grad=True)
    mg.scatter_reduce(x, 0, [0, 0], s, "prod").sum().backward()
    assert x.grad.tolist() == [0.0, 1.0] and s.grad.tolist() == [8.0, 0.0]


def test_two_gradient_rules_that_differ_from_pytorchs_on_purpose():
    # Found comparing with torch 2.13 (PyTorch's test_scatter_gather cases, gradients): both are
    # documented in docs/from-pytorch.md (gather/scatter).  An excluded self that ties the maximum:
    # torch counts it in the share and then drops its part (s.grad [1/3, 1/3, 1.0], a third lost);
    # here the scattered values share all of it.
    x = mg.tensor([0.0, 5.0], dtype="float64", requires_grad=True)
    s = mg.tensor([0.0, 0.0, 1.0], dtype="float64", requires_grad=True)
    mg.scatter_reduce(x, 0, [0, 0, 1], s, "amax", include_self=False).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and s.grad.tolist() == [0.5, 0.5, 1.0]
    # Two writes to one position: the last in index order is the value, and only it gets the
    # gradient (torch's formula, grad.gather(index), gives every writer the position's gradient).
    s = mg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    out = mg.scatter(mg.zeros(2, dtype="float64"), 0, [0, 0, 1], s)
    (out * mg.tensor([10.0, 100.0], dtype="float64")).sum().backward()
    assert out.tolist() == [2.0, 3.0] and s.grad.tolist() == [0.0, 10.0, 100.0]


def test_index_add_copy_fill_reduce_select():
    x, s = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
    i = np.array([0, 2, 0])
    want = x.copy()
    np.add.at(want, i, 2 * s)
    assert np.allclose(mg.index_add(mg.tensor(x), 0, i, s, alpha=2).numpy(), want)
    copied = x.copy()
    copied[[3, 1]] = s[:2]
    assert np.array_equal(mg.index_copy(mg.tensor(x), 0, [3, 1], s[:2]).numpy(), copied)
    filled = x.copy()
    filled[:, [0, 2]] = 7.0
    assert np.array_equal(mg.index_fill(mg.tensor(x), 1, [0, 2], 7.0).numpy(), filled)
    assert np.array_equal(mg.index_select(mg.tensor(x), 1, [2, 2, 0]).numpy(), x[:, [2, 2, 0]])
    check_everywhere(lambda t, i, u: mg.index_add(t, 0, i, u), x, i, s)
    check_everywhere(lambda t, u: mg.index_copy(t, 0, np.array([3, 1]), u), x, s[:2])
    check_everywhere(lambda t, v: mg.index_fill(t, 1, np.array([0, 2]), v), x, np.array(0.5))
    check_everywhere(lambda t, u: mg.index_reduce(t, 0, np.array([1, 1, 3]), u, "amax"),
                     x, np.array([[5.0, -5, 0.3], [4, 6, -1], [0.1, 0.2, 0.4]]))
    check_everywhere(lambda t: mg.index_select(t, 1, np.array([2, 2, 0])), x)


def test_index_put_masked_and_put():
    x = rng.standard_normal((3, 4))
    a, b, v = np.array([0, 0, 2]), np.array([1, 1, 3]), rng.standard_normal(3)
    acc = x.copy()
    np.add.at(acc, (a, b), v)
    assert np.allclose(mg.index_put(mg.tensor(x), (a, b), v, accumulate=True).numpy(), acc)
    over = x.copy()
    over[a, b] = v
    assert np.array_equal(mg.index_put(mg.tensor(x), (a, b), mg.tensor(v)).numpy(), over)
    m = x > 0
    assert np.array_equal(mg.masked_select(mg.tensor(x), m).numpy(), x[m])
    src = rng.standard_normal(12)
    scattered = x.copy()
    scattered[m] = src[:m.sum()]
    assert np.array_equal(mg.masked_scatter(mg.tensor(x), m, src).numpy(), scattered)
    assert np.array_equal(mg.masked_fill(mg.tensor(x), m, 0.0).numpy(), np.where(m, 0.0, x))
    put = x.copy().ravel()
    put[[11, 0]] = [5.0, 6.0]
    assert np.array_equal(mg.put(mg.tensor(x), [-1, 0], [5.0, 6.0]).numpy(), put.reshape(3, 4))
    check_everywhere(lambda t, u: mg.index_put(t, (a, b), u, accumulate=True), x, v)
    check_everywhere(lambda t, u: mg.index_put(t, (a, b), u), x, v)
    check_everywhere(lambda t: mg.masked_select(t, mg.tensor(m, device=t.device)), x)
    check_everywhere(lambda t, u: mg.masked_scatter(t, mg.tensor(m, device=t.device), u), x, src)
    check_everywhere(lambda t, u: mg.put(t, np.array([-1, 0, 5]), u, accumulate=True), x, src[:3])


def test_nonzero_keeps_numpys_meaning_and_as_tuple_selects_pytorchs():
    x = np.array([[0.0, 1.5], [2.0, 0.0]])
    rows, cols = mg.nonzero(mg.tensor(x))                      # NumPy's: one index tensor per dim
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert mg.nonzero(mg.tensor(x), as_tuple=False).tolist() == [[0, 1], [1, 0]]  # PyTorch's (count, ndim)
    assert mg.tensor(x).nonzero().tolist() == [[0, 1], [1, 0]]                      # the method: PyTorch's
    assert mg.argwhere(mg.tensor(x)).dtype == mg.int64
    assert mg.tensor(3.0).nonzero().shape == (1, 0)
    assert [t.tolist() for t in mg.tensor(3.0).nonzero(as_tuple=True)] == [[0]]
    x_strict = mg.tensor(x, device="strict")
    assert mg.argwhere(x_strict).device == x_strict.device


def test_methods_and_their_in_place_twins():
    x = mg.tensor(np.zeros((3, 2)))  # float64: the sources must be too, as PyTorch's
    with mg.no_grad():
        x.scatter_(0, np.array([[2, 0]]), mg.tensor([[1.0, 2.0]], dtype="float64"))
        x.index_fill_(1, [1], 9.0)
        x.index_add_(0, [0], mg.tensor([[1.0, 1.0]], dtype="float64"))
    assert x.tolist() == [[1.0, 10.0], [0.0, 9.0], [1.0, 9.0]]
    y = mg.tensor(np.zeros(3))
    assert y.scatter(0, np.array([1]), 5.0).tolist() == [0.0, 5.0, 0.0]
    assert y.gather(0, np.array([2, 2])).tolist() == [0.0, 0.0]
    leaf = mg.tensor(np.zeros(3), requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.scatter_(0, np.array([0]), 1.0)


def test_under_checkpointing_and_vmap_free_composition():
    x = mg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    s = mg.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    i = rng.integers(0, 4, (6, 3))

    def block(x, s):
        return mg.scatter_reduce(x, 0, i, s, "amax").tanh()

    plain = mg.grad(block(x, s).sum(), [x, s])
    kept = mg.grad(mg.checkpoint.checkpoint(block, x, s).sum(), [x, s])
    for a, b in zip(plain, kept):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_errors_name_the_problem():
    x = mg.tensor(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="^index 4 is out of bounds for dimension 1 with size 4$"):  # torch's
        mg.gather(x, 1, np.array([[4]]))
    with pytest.raises(IndexError, match="out of bounds"):
        mg.scatter_add(x, 0, np.array([[-1]]), mg.tensor([[1.0]], dtype="float64"))
    with pytest.raises(RuntimeError, match="index has 1 dims, the input 2"):
        mg.gather(x, 0, np.array([0]))
    with pytest.raises(RuntimeError, match="longer than the input on dim 1"):
        mg.gather(x, 0, np.zeros((1, 5), int))
    with pytest.raises(ValueError, match="axis 2 is out of bounds for a tensor of dimension 2"):
        mg.gather(x, 2, np.zeros((1, 1), int))
    with pytest.raises(IndexError, match="integers"):
        mg.gather(x, 0, np.zeros((1, 1)))
    with pytest.raises(ValueError, match="reduce must be one of"):
        mg.scatter_reduce(x, 0, np.zeros((1, 1), int), mg.tensor([[1.0]], dtype="float64"), "max")
    with pytest.raises(IndexError, match="^index 3 is out of bounds for dimension 0 with size 3$"):
        mg.index_add(x, 0, [3], mg.tensor(np.ones((1, 4))))
    with pytest.raises(RuntimeError, match="source has shape"):
        mg.index_copy(x, 0, [0], mg.tensor(np.ones((2, 4))))
    with pytest.raises(TypeError, match="expected BoolTensor for mask"):  # PyTorch's words
        mg.masked_select(x, np.ones((3, 4)))
    with pytest.raises(RuntimeError, match="masked_scatter: the mask selects 12 positions"):
        mg.masked_scatter(x, mg.tensor(np.ones((3, 4), bool)), mg.tensor([1.0], dtype="float64"))
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements"):
        mg.put(x, [12], [1.0])


def test_select_slice_and_diagonal_scatter():
    x, s = rng.standard_normal((4, 3)), rng.standard_normal(3)
    t, d = rng.standard_normal((2, 3)), rng.standard_normal(2)
    want = x.copy()
    want[2] = s
    np.testing.assert_array_equal(mg.select_scatter(mg.tensor(x), s, 0, 2).numpy(), want)
    want = x.copy()
    want[1:4:2] = t
    np.testing.assert_array_equal(mg.slice_scatter(mg.tensor(x), t, 0, 1, 4, 2).numpy(), want)
    want = x.copy()
    want[[0, 1], [1, 2]] = d
    np.testing.assert_array_equal(mg.diagonal_scatter(mg.tensor(x), d, 1).numpy(), want)
    check_everywhere(lambda a, b: mg.select_scatter(a, b, 0, 2), x, s)
    check_everywhere(lambda a, b: mg.diagonal_scatter(a, b, 1), x, d)
    with pytest.raises(RuntimeError, match="slice_scatter: src has shape"):
        mg.slice_scatter(mg.tensor(x), mg.tensor(s), 0, 0, 2)
