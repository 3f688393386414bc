"""Indexing: gathers accumulate, masks, negative-step slices, bounds errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg


def leaf(values):
    return mg.tensor(np.asarray(values, dtype="float64"), requires_grad=True)


def scatter_ref(shape, index, g):
    """Reference gradient of ``x[index]``: ``np.add.at`` into zeros."""
    out = np.zeros(shape)
    np.add.at(out, index, g)
    return out


# ------------------------------------------------------- repeated indices
def test_repeated_integer_indices_accumulate_like_bincount():
    idx = np.array([0, 0, 3, 1, 0, 3, 4])
    x = leaf(np.arange(6.0))
    x[idx].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.bincount(idx, minlength=6))


def test_repeated_indices_with_weights():
    idx = np.array([2, 2, 2, 0])
    g = np.array([1.0, 10.0, 100.0, 5.0])
    x = leaf(np.zeros(3))
    x[idx].backward(gradient=g)
    np.testing.assert_array_equal(x.grad.numpy(), np.bincount(idx, weights=g, minlength=3))


def test_repeated_rows_in_2d():
    xv = np.arange(12.0).reshape(4, 3)
    idx = np.array([1, 1, 3, 1])
    x = leaf(xv)
    out = x[idx]
    np.testing.assert_array_equal(out.numpy(), xv[idx])
    G = np.arange(12.0).reshape(4, 3)
    out.backward(gradient=G)
    np.testing.assert_array_equal(x.grad.numpy(), scatter_ref(xv.shape, idx, G))


def test_paired_integer_arrays_with_repeats():
    xv = np.arange(9.0).reshape(3, 3)
    rows, cols = np.array([0, 2, 0, 0]), np.array([1, 2, 1, 1])
    x = leaf(xv)
    x[rows, cols].sum().backward()
    expected = np.zeros((3, 3))
    expected[0, 1] = 3
    expected[2, 2] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_integer_tensor_as_index():
    idx = mg.tensor([2, 2, 0])
    x = leaf([1.0, 2.0, 3.0])
    x[idx].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 2.0])


def test_take_accumulates():
    x = leaf(np.arange(6.0).reshape(2, 3))
    mg.take(x, np.array([0, 0, 2]), axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 0, 1], [2, 0, 1]])
    x = leaf(np.arange(6.0).reshape(2, 3))
    mg.take(x, [5, 5]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0], [0, 0, 2]])


# ------------------------------------------------------------------ masks
def test_boolean_mask_numpy():
    m = np.array([True, False, True, False])
    x = leaf([1.0, 2.0, 3.0, 4.0])
    out = x[m]
    np.testing.assert_array_equal(out.numpy(), [1.0, 3.0])
    out.backward(gradient=np.array([5.0, 7.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 0.0, 7.0, 0.0])


def test_boolean_mask_tensor_from_comparison():
    xv = np.array([[1.0, -2.0], [-3.0, 4.0]])
    x = leaf(xv)
    (x[x > 0] ** 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(xv > 0, 2 * xv, 0.0))


def test_boolean_mask_on_leading_axis():
    xv = np.arange(6.0).reshape(3, 2)
    x = leaf(xv)
    out = x[np.array([False, True, True])]
    assert out.shape == (2, 2)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [1, 1], [1, 1]])


def test_all_false_mask_gives_zero_grad():
    x = leaf([1.0, 2.0])
    out = x[np.array([False, False])]
    assert out.shape == (0,)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_mask_shape_mismatch_raises():
    with pytest.raises(IndexError, match=re.escape("The shape of the mask [3] at index 0 does not match the shape of "
                                                   "the indexed tensor [2, 3] at index 0")):
        mg.ones(2, 3)[np.array([True, False, True])]
    # PyTorch's words, found by running its test_indexing.py against the engine (messages of torch 2.13)
    with pytest.raises(IndexError, match=re.escape("The shape of the mask [4, 4] at index 1 does not match the shape "
                                                   "of the indexed tensor [5, 4, 3] at index 2")):
        mg.ones(5, 4, 3)[:, mg.zeros(4, 4, dtype=mg.bool)]


def test_an_int_or_slice_of_a_0d_tensor_is_pytorchs_error():
    with pytest.raises(IndexError, match=re.escape("invalid index of a 0-dim tensor. Use `tensor.item()`")):
        mg.tensor(10)[0]
    with pytest.raises(IndexError, match=re.escape("slice() cannot be applied to a 0-dim tensor.")):
        mg.tensor(10)[:]


# ----------------------------------------------------------------- slices
@pytest.mark.parametrize("index", [
    (slice(None, None, -1),),
    (slice(None, None, -2),),
    (slice(4, 0, -3),),
    (slice(-1, None, -1), slice(None, None, -2)),
    (slice(None, None, -1), slice(3, 0, -2)),
    (Ellipsis, slice(None, None, -1)),
    (slice(None, None, 2), None, slice(1, None)),
], ids=str)
def test_slices_including_negative_steps(index):
    xv = np.arange(20.0).reshape(5, 4)
    x = leaf(xv)
    out = x[index]
    np.testing.assert_array_equal(out.numpy(), xv[index])
    G = np.arange(float(out.size)).reshape(out.shape) + 1
    out.backward(gradient=G)
    expected = np.zeros_like(xv)
    expected[index] = G
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_overlapping_slices_accumulate():
    x = leaf(np.arange(5.0))
    (x[1:4].sum() + x[::-1][:3].sum() + x[2]).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1, 3, 2, 1])


def test_integer_and_negative_integer_indices():
    xv = np.arange(12.0).reshape(3, 4)
    x = leaf(xv)
    (x[-1, 0] * 2 + x[0, -1] * 3).backward()
    expected = np.zeros((3, 4))
    expected[-1, 0] = 2
    expected[0, -1] = 3
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_empty_index_list():
    x = leaf([1.0, 2.0])
    out = x[[]]
    assert out.shape == (0,)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_gather_result_is_not_aliased_with_input():
    xv = np.arange(4.0)
    x = mg.tensor(xv)
    out = x[np.array([0, 1])]
    assert not np.shares_memory(out.numpy(), x.numpy())


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("index, bad, axis, size", [
    (7, 7, 0, 5),
    (-6, -6, 0, 5),
    ((np.array([1, 9]),), 9, 0, 5),
    ((np.array([0, -7]),), -7, 0, 5),
])
def test_out_of_range_index_names_the_index(index, bad, axis, size):
    x = leaf(np.arange(5.0))
    with pytest.raises(IndexError) as exc:
        x[index]
    msg = str(exc.value)
    assert f"index {bad} is out of bounds" in msg
    assert f"dimension {axis}" in msg and f"size {size}" in msg  # (torch 2.13's words)


def test_out_of_range_on_second_axis():
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        mg.ones(2, 3)[0, 3]
    # torch 2.13 names an index tensor's dim by its place among the index tensors: the first, 0
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 3"):
        mg.ones(2, 3)[:, [0, 4]]


def test_too_many_indices():
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        mg.ones(2, 3)[0, 1, 0]


def test_float_index_rejected():
    with pytest.raises(IndexError, match="must be integer or bool"):
        mg.ones(3)[np.array([0.5])]
    with pytest.raises(IndexError, match="must be long, int, byte or bool tensors"):  # PyTorch's words
        mg.ones(3)[mg.tensor([0.0])]


def test_deleting_an_item_is_pytorchs_type_error():
    # torch 2.13: `del t[0]` raises TypeError("Tensor does not support deleting items") (test_torch's
    # test_index asks for the TypeError); a class with __setitem__ alone gave Python's AttributeError
    x = mg.arange(3.0)
    with pytest.raises(TypeError, match="^Tensor does not support deleting items$"):
        del x[0]
    assert x.tolist() == [0.0, 1.0, 2.0]
