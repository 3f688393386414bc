"""Refusals of indexing and view functions carry PyTorch's words (torch 2.13's, on the same calls).

PyTorch's test_indexing.py and test_view_ops.py match these messages with assertRaisesRegex; run
translated against the engine, each match failed on the engine's own wording (the types were
already PyTorch's).  Two were more than words: ``tensor_split`` took an int32 tensor of split
points and ``take_along_dim`` int32 indices, both of which PyTorch refuses (int64 alone), and
``x[idx] = v`` with a value of both the wrong shape and the wrong dtype named the dtype, where
PyTorch checks (and names) the shape first.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

CASES = {
    "chunk of 0": (lambda: mg.ones(3).chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    "chunk of -2": (lambda: mg.chunk(mg.ones(3), -2), RuntimeError,
                    "chunk expects `chunks` to be greater than 0, got: -2"),
    "tensor_split of 0 sections": (lambda: mg.tensor_split(mg.ones(10), 0), RuntimeError,
                                   "number of sections must be larger than 0, got 0"),
    "tensor_split of -1 sections as a tensor": (lambda: mg.tensor_split(mg.ones(10), mg.tensor(-1)), RuntimeError,
                                                "number of sections must be larger than 0, got -1"),
    "tensor_split of float split points": (lambda: mg.tensor_split(mg.ones(10), mg.tensor(1.1)), RuntimeError,
                                           "tensor_split expected tensor_indices_or_sections to have dtype of long, "
                                           "but got Float"),
    "tensor_split of int32 split points": (lambda: mg.tensor_split(mg.ones(10), mg.tensor([2], dtype=mg.int32)),
                                           RuntimeError, "tensor_split expected tensor_indices_or_sections to have "
                                                         "dtype of long, but got Int"),
    "tensor_split of 2-D split points": (lambda: mg.tensor_split(mg.ones(10), mg.tensor([[1]])), RuntimeError,
                                         "tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                                         "or one-dimensional tensor, but got a tensor with 2 dims"),
    "view_as_complex of a 0-d": (lambda: mg.view_as_complex(mg.tensor(2.0)), RuntimeError,
                                 "Input tensor must have one or more dimensions"),
    "view_as_complex of a last dim of 3": (lambda: mg.view_as_complex(mg.ones(3, 2, 2).transpose(0, 2)),
                                           RuntimeError, "Tensor must have a last dimension of size 2"),
    "view_as_complex of nothing": (lambda: mg.view_as_complex(mg.tensor([])), RuntimeError,
                                   "Tensor must have a last dimension of size 2"),
    "view_as_complex of integers": (lambda: mg.view_as_complex(mg.ones(3, 2, dtype=mg.int64)), RuntimeError,
                                    "view_as_complex is only supported for half, float and double tensors, but got "
                                    "a tensor of scalar type: Long"),
    "take_along_dim of float indices": (lambda: mg.take_along_dim(mg.ones(2, 3), mg.zeros(2, 3), 1), RuntimeError,
                                        "torch.take_along_dim(): dtype of indices should be Long but got Float"),
    "take_along_dim of int32 indices": (lambda: mg.take_along_dim(mg.ones(2, 3), mg.zeros(2, 3, dtype=mg.int32), 1),
                                        RuntimeError,
                                        "torch.take_along_dim(): dtype of indices should be Long but got Int"),
    "take_along_dim of bool indices": (lambda: mg.take_along_dim(mg.ones(2, 3), mg.zeros(2, 3, dtype=mg.bool), 1),
                                       RuntimeError,
                                       "torch.take_along_dim(): dtype of indices should be Long but got Bool"),
    "an index array into an empty dim": (lambda: mg.empty(10, 0)[:, [0, 1]], IndexError,
                                         "index is out of bounds for dimension with size 0"),
    "an index array into an empty tensor": (lambda: mg.empty(0)[mg.tensor([0])], IndexError,
                                            "index is out of bounds for dimension with size 0"),
    "a value of the wrong shape and dtype under a mask": (
        lambda: mg.arange(4).__setitem__(mg.arange(4) > -1, mg.tensor([1.0, 2.0, 3.0])), RuntimeError,
        "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [4]"),
    "a value of the wrong shape and dtype at a list": (
        lambda: mg.arange(4).__setitem__([0, 1, 2, 3], mg.tensor([1.0, 2.0, 3.0])), RuntimeError,
        "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [4]"),
    "an empty value under a mask": (lambda: mg.arange(4).__setitem__(mg.arange(4) > -1, mg.tensor([])),
                                    RuntimeError, "shape mismatch: value tensor of shape [0] cannot be broadcast"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_refusal_is_in_pytorchs_words(name):
    call, error, message = CASES[name]
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_what_pytorch_takes_is_still_taken():
    assert [p.tolist() for p in mg.tensor_split(mg.arange(5), mg.tensor([2]))] == [[0, 1], [2, 3, 4]]
    assert mg.take_along_dim(mg.arange(6).view(2, 3), mg.tensor([[2], [0]]), 1).tolist() == [[2], [3]]
    x = mg.arange(4)
    x[[0, 1, 2, 3]] = mg.tensor([5, 6, 7, 8])
    assert x.tolist() == [5, 6, 7, 8]
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        x[[0, 1, 2, 3]] = mg.tensor([1.0, 2.0, 3.0, 4.0])  # the shape fits: the dtype is what PyTorch names
    assert mg.view_as_complex(mg.ones(3, 2)).shape == (3,)
    flat = mg.take_along_dim(mg.arange(6).view(2, 3), mg.tensor([5, 0], dtype=mg.int32))  # flattened: a gather
    assert flat.tolist() == [5, 0]
