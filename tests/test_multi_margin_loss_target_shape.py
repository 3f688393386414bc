"""``multi_margin_loss`` takes PyTorch's target shapes and gives PyTorch's unreduced shape.

The target is 0-d or 1-D with one class index per sample, and ``reduction="none"`` returns a loss of
the target's shape: a (C,) input with a (1,) target gives (1,), an (1, C) input with a 0-d target
gives ().  The loss used to follow the input's rank instead, and a (N, 1) target was flattened and
accepted where PyTorch raises.  Shapes and values from torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("input_shape, target, want_shape", [
    ((4,), [1], (1,)),
    ((4,), 1, ()),
    ((1, 4), 1, ()),
    ((1, 4), [1], (1,)),
    ((3, 4), [0, 1, 2], (3,)),
])
def test_the_unreduced_loss_has_the_targets_shape(dtype, input_shape, target, want_shape):
    x = mg.tensor(np.linspace(-1.0, 1.0, int(np.prod(input_shape))).reshape(input_shape), dtype=dtype,
                  requires_grad=True)
    loss = F.multi_margin_loss(x, mg.tensor(target), reduction="none")
    assert loss.shape == want_shape and loss.dtype == dtype
    assert F.multi_margin_loss(x, mg.tensor(target)).shape == ()
    np.testing.assert_allclose(loss.sum().item(), F.multi_margin_loss(x, mg.tensor(target), reduction="sum").item())
    loss.sum().backward()
    assert x.grad.shape == input_shape


def test_the_values_of_a_single_sample_match_torch():
    x = mg.tensor([0.1, 0.2, 0.4, 0.8])
    # torch 2.13: F.multi_margin_loss(torch.tensor([0.1, 0.2, 0.4, 0.8]), torch.tensor([3]), reduction="none")
    np.testing.assert_allclose(F.multi_margin_loss(x, mg.tensor([3]), reduction="none").numpy(), [0.325], rtol=1e-6)


@pytest.mark.parametrize("input_shape, target, sizes", [
    ((3, 4), [[0], [1], [2]], r"Expected target size \[3\], but got \[3, 1\]\. Input has shape \[3, 4\]\. \(The "
                              r"target holds 3 class indices in \[0, 4\)\.\)"),
    ((4,), [[1]], r"Expected target size \[1\], but got \[1, 1\]\. Input has shape \[4\]\."),
    ((3, 4), [0, 1], r"Expected target size \[3\], but got \[2\]\. Input has shape \[3, 4\]\."),
])
def test_a_target_not_0d_or_1d_of_the_batch_size_is_refused(input_shape, target, sizes):
    words = (r"multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
             r"\(batch size\)\. ")  # (PyTorch's words, torch 2.13)
    with pytest.raises(ValueError, match=words + sizes):
        F.multi_margin_loss(mg.zeros(input_shape), mg.tensor(target))
