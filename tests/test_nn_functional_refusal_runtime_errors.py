"""More ``nn.functional`` refusals raise PyTorch's ``RuntimeError`` -- and still the ``ValueError``
(``TypeError`` for ``embedding``'s float ids) the engine raised before, which was not a RuntimeError:
a program's ``except RuntimeError`` written against PyTorch missed them.  Each case is a
RuntimeError in torch 2.13 (its words in the comments)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

X = mg.tensor(np.random.default_rng(0).standard_normal((1, 2, 6, 7)))
W = mg.ones(3, 2, 2, 2)

CASES = {  # name: (the refused call, the engine's earlier exception type, which it still is)
    "pad_odd_length": (lambda: F.pad(X, (1,)), ValueError),  # Padding length must be divisible by 2
    "pad_too_long": (lambda: F.pad(X, (1, 1) * 5), ValueError),  # Padding length should be less than ...
    "reflect_pad_past_the_edge": (lambda: F.pad(X, (7, 7, 7, 7), mode="reflect"), ValueError),
    "fold_block_count": (lambda: F.fold(mg.ones(1, 8, 5), (5, 6), 2), ValueError),  # Given output_size=...
    "fold_4d_input": (lambda: F.fold(mg.ones(1, 1, 8, 5), (5, 6), 2), ValueError),  # Expected 2D or 3D ...
    "unfold_kernel_past_the_plane": (lambda: F.unfold(X, 8), ValueError),  # Given input with spatial size
    "local_response_norm_size_0": (lambda: F.local_response_norm(X, 0), ValueError),  # kernel size should be ...
    "conv_same_strided": (lambda: F.conv2d(X, W, stride=2, padding="same"), ValueError),
    "conv_stride_0": (lambda: F.conv2d(X, W, stride=0), ValueError),  # non-positive stride is not supported
    "conv_negative_padding": (lambda: F.conv2d(X, W, padding=-1), ValueError),  # negative padding is not ...
    "adaptive_pool_sizes": (lambda: F.adaptive_avg_pool3d(X, (2, 3)), ValueError),  # output_size must be 3
    "nll_target_shape": (lambda: F.nll_loss(X[0], mg.tensor([0, 1])), ValueError),  # Expected target size ...
    "embedding_float_ids": (lambda: F.embedding(mg.tensor([1.0, 2.0]), mg.ones(5, 3)), TypeError),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_refusal_is_a_runtime_error_and_what_it_was(name):
    call, before = CASES[name]
    with pytest.raises(RuntimeError) as caught:
        call()
    assert isinstance(caught.value, before)
