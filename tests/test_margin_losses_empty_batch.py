"""``multi_margin_loss`` and ``multilabel_margin_loss`` of an empty batch, as PyTorch's: torch 2.13
answers an empty vector (``reduction='none'``) and 0 for the mean (its kernels sum the empty batch),
with a (0, C) gradient.  The engine's multilabel_margin_loss crashed reshaping the empty target
(NumPy's ValueError "cannot reshape array of size 0 into shape (0,newaxis)") and multi_margin_loss
answered NaN for the mean.  (PyTorch's 'sum' there is uninitialized memory; 0 here.)"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

LOSSES = {
    "multi_margin_loss": lambda x, r: F.multi_margin_loss(x, mg.zeros(0, dtype=mg.int64), reduction=r),
    "multilabel_margin_loss": lambda x, r: F.multilabel_margin_loss(x, mg.zeros(0, 4, dtype=mg.int64), reduction=r),
}


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("reduction, want", [("none", []), ("mean", 0.0), ("sum", 0.0)])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_an_empty_batch_is_pytorchs(name, reduction, want, dtype):
    x = mg.zeros(0, 4, dtype=dtype, requires_grad=True)
    loss = LOSSES[name](x, reduction)
    assert loss.tolist() == want and loss.dtype == dtype
    loss.sum().backward()
    assert x.grad.shape == (0, 4)


def test_a_target_of_the_wrong_size_is_still_refused():
    with pytest.raises(ValueError, match="class indices or -1"):
        F.multilabel_margin_loss(mg.zeros(2, 4), mg.zeros(2, 3, dtype=mg.int64))
    assert F.multilabel_margin_loss(mg.zeros(4), mg.zeros(4, dtype=mg.int64)).item() == 3.0  # torch: 3.
