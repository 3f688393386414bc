"""Shape and argument refusals of the shape, selection and composition functions are PyTorch's
``RuntimeError`` in PyTorch's words, and stay the ``ValueError`` they were (NumPy's type).

Found by running PyTorch's test_view_ops.py and test_indexing.py translated against the engine:
``torch.broadcast_to`` of shapes that do not broadcast, ``x.flatten(2, 0)``, ``take_along_dim`` of
indices of another rank and ``x.t()`` of a 3-D tensor are RuntimeErrors that those tests match
(``assertRaisesRegex(RuntimeError, ...)``), and the engine raised a bare ValueError in its own
words; the same sweep found the others below.  Each message is torch 2.13's on the same call.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

CASES = {
    "broadcast_to": (lambda: mg.broadcast_to(mg.ones(2), (1, 1)),
                     "The expanded size of the tensor (1) must match the existing size (2) at non-singleton "
                     "dimension 1.  Target sizes: [1, 1].  Tensor sizes: [2]"),
    "broadcast_to a leading -1": (lambda: mg.broadcast_to(mg.ones(2), (-1, 2)),
                                  "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                  "dimension 0"),
    "flatten start after end": (lambda: mg.ones(2, 3, 4).flatten(2, 0),
                                "flatten() has invalid args: start_dim cannot come after end_dim"),
    "take_along_dim of another rank": (lambda: mg.take_along_dim(mg.ones(2, 3), mg.zeros(3, dtype=mg.long), dim=0),
                                       "torch.take_along_dim(): input and indices should have the same number of "
                                       "dimensions, but got 2 dimensions for input, and 1 dimensions for indices"),
    "t of 3-D": (lambda: mg.t(mg.ones(2, 2, 2)), "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    "the t method of 3-D": (lambda: mg.ones(2, 2, 2).t(), "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    "tile negative": (lambda: mg.tile(mg.ones(2), (-2,)), "Trying to create tensor with negative dimension -2"),
    "bucketize 2-D boundaries": (lambda: mg.bucketize(mg.ones(3), mg.ones(2, 2)),
                                 "boundaries tensor must be 1 dimension, but got dim(2)"),
    "block_diag 3-D": (lambda: mg.block_diag(mg.ones(2, 2, 2)),
                       "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions"),
    "cartesian_prod 2-D": (lambda: mg.cartesian_prod(mg.ones(2, 2), mg.ones(2)),
                           "Expect a 1D vector, but got shape [2, 2]"),
    "combinations 2-D": (lambda: mg.combinations(mg.ones(2, 2)), "Expect a 1D vector, but got shape [2, 2]"),
    "combinations negative r": (lambda: mg.combinations(mg.ones(3), -1), "Expect a non-negative number, but got -1"),
    "hsplit uneven": (lambda: mg.hsplit(mg.ones(2, 3), 2),
                      "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is not "
                      "divisible by the split_size 2!"),
    "meshgrid indexing": (lambda: mg.meshgrid(mg.ones(2), mg.ones(2), indexing="zz"),
                          'torch.meshgrid: indexing must be one of "xy" or "ij", but received: zz'),
    "quantile 2-D q": (lambda: mg.quantile(mg.ones(3), mg.ones(2, 2) * 0.5),
                       "quantile() q must be a scalar or 1D tensor"),
    "bincount weights": (lambda: mg.bincount(mg.tensor([0, 1]), mg.ones(3)),
                         "weights should be 1-d and have the same length as input"),
    "stack of nothing": (lambda: mg.stack([]), "stack expects a non-empty TensorList"),
    "cat of nothing": (lambda: mg.cat([]), "expects a non-empty TensorList"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_shape_refusal_is_pytorchs_runtime_error_and_still_a_value_error(name):
    call, message = CASES[name]
    with pytest.raises(RuntimeError, match=re.escape(message)) as err:
        call()
    assert isinstance(err.value, ValueError)


def test_expand_and_broadcast_to_share_the_message():
    with pytest.raises(RuntimeError) as by_method:
        mg.ones(2).expand(3, 3)
    with pytest.raises(RuntimeError) as by_function:
        mg.broadcast_to(mg.ones(2), (3, 3))
    assert isinstance(by_function.value, ValueError)
    assert str(by_method.value) == str(by_function.value)


def test_broadcast_shapes_that_do_not_broadcast_are_pytorchs_runtime_error():
    with pytest.raises(RuntimeError, match="Shape mismatch: objects cannot be broadcast to a single shape") as err:
        mg.broadcast_shapes((3, 5), (2, 4, 1))
    assert isinstance(err.value, ValueError)
    with pytest.raises(ValueError):  # a negative size: PyTorch's ValueError too
        mg.broadcast_shapes((1, -12), (4, 1))
    assert mg.broadcast_shapes(1, (5,)) == (5,)


# torch.unravel_index's refusals (test_indexing.py's test_unravel_index_errors; torch 2.13's words).
# The engine cast float and bool indices to int64 (0.5 gave coordinate 0), iterated a 0-d tensor
# shape, took a float size, answered a negative size and divided by a zero size with NumPy's warning.
@pytest.mark.parametrize("indices, shape, error, message", [
    (mg.tensor(0.5), (2, 2), TypeError, "expected 'indices' to be integer dtype, but got float32"),
    (mg.tensor([]), (10, 3, 5), TypeError, "expected 'indices' to be integer dtype"),
    (mg.tensor(True), (2, 2), TypeError, "expected 'indices' to be integer dtype, but got bool"),
    (mg.tensor([1]), mg.tensor([1, 2, 3]), TypeError, "expected 'shape' to be int or sequence of ints, but got"),
    (mg.tensor([1]), (1, 2, 2.0), TypeError, "expected 'shape' sequence to only contain ints, but got <class 'float'>"),
    (mg.tensor(0), (2, -3), ValueError, "'shape' cannot have negative values, but got (2, -3)"),
    (mg.tensor(0), (2, 0), RuntimeError, "ZeroDivisionError"),
])
def test_unravel_index_refuses_as_pytorch(indices, shape, error, message):
    with pytest.raises(error, match=re.escape(message)):
        mg.unravel_index(indices, shape)


def test_unravel_index_still_answers_what_pytorch_answers():
    assert [c.tolist() for c in mg.unravel_index(mg.tensor([5, 7]), 4)] == [[1, 3]]
    rows, cols = mg.unravel_index(mg.tensor([[5], [7]], dtype=mg.int32), [2, 4])
    assert rows.tolist() == [[1], [1]] and cols.tolist() == [[1], [3]]
    assert [c.shape for c in mg.unravel_index(mg.tensor([], dtype=mg.int64), (2, 0))] == [(0,), (0,)]
    assert mg.unravel_index(mg.tensor(5), ()) == ()
