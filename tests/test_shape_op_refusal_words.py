"""The shape ops' refusals in PyTorch's words (torch 2.13's messages, pasted as literals).

Found by running PyTorch's test_shape_ops.py and test_view_ops.py against the engine: the refusals
were PyTorch's exception classes already, but in the engine's own words ("narrow: start 4 and length
1 do not fit dim 0 of length 3", "rot90: dims must name 2 dims"), so code and tests that match
PyTorch's messages did not recognise them.  ``hsplit``/``vsplit``/``dsplit`` with a count of 0 raised
Python's ZeroDivisionError, and with a negative count NumPy's ValueError; both are PyTorch's
RuntimeError now.
"""

from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

x = mg.zeros(2, 3, 4)
v = mg.arange(7.0)

CASES = [
    # (call, PyTorch's exception class, PyTorch's message)
    (lambda: x.expand(3, 4), RuntimeError,
     "expand(torch.FloatTensor{[2, 3, 4]}, size=[3, 4]): the number of sizes provided (2) must be greater or "
     "equal to the number of dimensions in the tensor (3)"),
    (lambda: mg.zeros(3, 1).expand(-1, 3, 4), RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda: mg.tensor(1.0).flatten(0, 1), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: mg.tensor(1.0).flatten(-2, 0), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    (lambda: v.narrow(0, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
    (lambda: v.narrow(0, -8, 1), IndexError, "start out of range (expected to be in range of [-7, 7], but got -8)"),
    (lambda: v.narrow(0, 5, 3), RuntimeError, "start (5) + length (3) exceeds dimension size (7)."),
    (lambda: v.narrow(0, -2, 3), RuntimeError, "start (5) + length (3) exceeds dimension size (7)."),
    (lambda: mg.zeros(3, 0).narrow(1, 0, 1), RuntimeError, "start (0) + length (1) exceeds dimension size (0)."),
    (lambda: mg.zeros(3, 0).narrow(1, 1, 0), IndexError,
     "start out of range (expected to be in range of [0, 0], but got 1)"),
    (lambda: v.split(-1), RuntimeError, "split expects split_size be non-negative, but got split_size=-1"),
    (lambda: v.split(0), RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of 7"),
    (lambda: v.split([8, -1]), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[8, -1]"),
    (lambda: v.split([3, 3]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 7 (input tensor's size at dimension 0), but got "
     "split_sizes=[3, 3]"),
    (lambda: x.movedim((1, 0), (0,)), RuntimeError,
     "movedim: Invalid source or destination dims: source ([1, 0] dims) should contain the same number of dims as "
     "destination ([0] dims)"),
    (lambda: x.movedim((0, -3), (0, 1)), RuntimeError, "movedim: repeated dim in `source` ([0, -3])"),
    (lambda: x.movedim((0, 1), (2, -1)), RuntimeError, "movedim: repeated dim in `destination` ([2, -1])"),
    (lambda: mg.diag(mg.tensor(1.0)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 0D"),
    (lambda: mg.diag(x), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda: x.diagonal(0, 1, -2), RuntimeError, "diagonal dimensions cannot be identical 1, -2"),
    (lambda: mg.diag_embed(mg.zeros(2, 3), 0, 1, -2), RuntimeError,
     "diagonal dimensions cannot be identical 1, -2"),
    (lambda: x.rot90(1, [0, 1, 2]), RuntimeError, "expected total rotation dims == 2, but got dims = 3"),
    (lambda: x.rot90(1, [1, -2]), RuntimeError,
     "expected rotation dims to be different, but got dim0 = 1 and dim1 = -2"),
    (lambda: v.rot90(), RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    (lambda: v.unfold(0, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
    (lambda: v.unfold(0, 1, -1), RuntimeError, "step is -1 but must be > 0"),
    (lambda: v.unfold(0, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    (lambda: v.unfold(0, 8, 1), RuntimeError, "maximum size for tensor at dimension 0 is 7 but size is 8"),
    (lambda: v.unfold(0, 8, -1), RuntimeError, "maximum size for tensor at dimension 0 is 7 but size is 8"),
    (lambda: mg.tensor(1.0).unfold(0, 2, 1), RuntimeError,
     "maximum size for tensor at dimension 0 is 1 but size is 2"),
    (lambda: x.unflatten(1, (2, 2)), RuntimeError,
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: x.unflatten(1, (-1, 2)), RuntimeError,
     "unflatten: Provided sizes [-1, 2] don't multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: x.unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda: x.unflatten(1, (-1, -1)), RuntimeError, "only one dimension can be inferred"),
    (lambda: x.unflatten(1, (-2, 3)), RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2, 3]"),
    (lambda: mg.zeros(2, 0).unflatten(1, (-1, 0)), RuntimeError,
     "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be any "
     "value and is ambiguous"),
    (lambda: v.tril(), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    (lambda: mg.tensor(1.0).triu(), RuntimeError, "triu: input tensor must have at least 2 dimensions"),
    (lambda: mg.hsplit(mg.tensor(1.0), 1), RuntimeError,
     "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!"),
    (lambda: mg.vsplit(v, 1), RuntimeError,
     "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!"),
    (lambda: mg.dsplit(mg.zeros(3, 4), 2), RuntimeError,
     "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!"),
    (lambda: mg.hsplit(mg.arange(6.0), 0), RuntimeError,
     "torch.hsplit attempted to split along dimension 0, but the size of the dimension 6 is not divisible by the "
     "split_size 0!"),
    (lambda: mg.arange(6.0).hsplit(0), RuntimeError,
     "torch.hsplit attempted to split along dimension 0, but the size of the dimension 6 is not divisible by the "
     "split_size 0!"),
    (lambda: mg.hsplit(mg.zeros(2, 0), 0), RuntimeError,
     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 0 is not divisible by the "
     "split_size 0!"),
    (lambda: mg.dsplit(x, -2), RuntimeError, "number of sections must be larger than 0, got -2"),
]


@pytest.mark.parametrize("call, kind, message", CASES, ids=[c[2][:48] for c in CASES])
def test_a_shape_refusal_is_pytorchs_class_and_words(call, kind, message):
    with pytest.raises(kind, match=f"^{re.escape(message)}$"):
        call()
