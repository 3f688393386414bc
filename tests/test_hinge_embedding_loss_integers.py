"""``F.hinge_embedding_loss`` of an integer input is computed in its dtype, as PyTorch's (the margin
truncated to it, uint8 wrapping); only ``reduction="mean"`` is refused (the mean's words).  The
engine refused every reduction before.

Expected values: torch 2.13 on the same calls (``F.hinge_embedding_loss(torch.tensor([0, 3, -2, 1]),
torch.tensor([-1, -1, 1, 0]), margin=1.5, reduction="none")`` is ``tensor([1, 0, -2, 1])``).
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

X, Y = [0, 3, -2, 1], [-1, -1, 1, 0]


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_integer_input_is_computed_in_its_dtype(device):
    x, y = mg.tensor(X, device=device), mg.tensor(Y, device=device)
    out = F.hinge_embedding_loss(x, y, margin=1.5, reduction="none")
    assert out.dtype == mg.int64 and out.tolist() == [1, 0, -2, 1]
    out = F.hinge_embedding_loss(x.to(mg.int32), y, margin=1.5, reduction="none")
    assert out.dtype == mg.int32 and out.tolist() == [1, 0, -2, 1]
    assert F.hinge_embedding_loss(x, y, margin=-1.5, reduction="sum").item() == -1
    wrapped = F.hinge_embedding_loss(x.to(mg.uint8), y, margin=1.5, reduction="sum")
    assert wrapped.dtype == mg.int64 and wrapped.item() == 510
    with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype. Input dtype must be either "
                                           "a floating point or complex dtype. Got: Long$"):
        F.hinge_embedding_loss(x, y)
