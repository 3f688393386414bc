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
# X's dtype and channels, so that each refusal below is its argument's, not a dtype or shape mismatch
W64 = mg.ones(3, 2, 2, 2, dtype="float64")
X5, W5 = mg.ones(1, 2, 3, 6, 7, dtype="float64"), mg.ones(3, 2, 2, 2, 2, dtype="float64")
CTC = (F.log_softmax(mg.ones(6, 2, 4), -1), mg.tensor([[1, 2], [3, 3]]), mg.tensor([6, 5]), mg.tensor([2, 2]))

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
    # the 3-D, 1-D and transposed convolutions, pixel_shuffle, cross_entropy and ctc_loss had kept ValueError
    "conv_padding_word": (lambda: F.conv2d(X, W64, padding="full"), ValueError),  # Invalid padding string: 'full'
    "conv1d_padding_word": (lambda: F.conv1d(X[0], W64[:, :, 0], padding="full"), ValueError),
    "conv1d_stride_pair": (lambda: F.conv1d(X[0], W64[:, :, 0], stride=(1, 2)), ValueError),  # expected stride ...
    "conv3d_same_strided": (lambda: F.conv3d(X5, W5, stride=2, padding="same"), ValueError),
    "conv3d_stride_0": (lambda: F.conv3d(X5, W5, stride=0), ValueError),
    "conv3d_negative_padding": (lambda: F.conv3d(X5, W5, padding=-1), ValueError),
    "conv3d_padding_word": (lambda: F.conv3d(X5, W5, padding="full"), ValueError),
    "conv_transpose_stride_0": (lambda: F.conv_transpose2d(X, W64.transpose(0, 1), stride=0), ValueError),
    "conv_transpose1d_weight_rank": (lambda: F.conv_transpose1d(X[0], W64), ValueError),
    "pixel_shuffle_factor_0": (lambda: F.pixel_shuffle(X, 0), ValueError),  # expects a positive upscale_factor
    "pixel_unshuffle_factor_negative": (lambda: F.pixel_unshuffle(X, -2), ValueError),
    "cross_entropy_probabilities_shape": (lambda: F.cross_entropy(X[0, 0], X[0, 1, :, :6]), ValueError),
    "cross_entropy_float_class_ids": (lambda: F.cross_entropy(X[0, 0], mg.tensor([1.0] * 6)), TypeError),
    "ctc_blank_past_the_classes": (lambda: F.ctc_loss(*CTC, blank=4), ValueError),  # blank must be in label range
    "ctc_input_length_past_the_frames": (lambda: F.ctc_loss(CTC[0], CTC[1], [7, 5], CTC[3]), ValueError),
    "ctc_lengths_per_sample": (lambda: F.ctc_loss(CTC[0], CTC[1], [6, 5, 4], CTC[3]), ValueError),
    "ctc_padded_targets_short": (lambda: F.ctc_loss(CTC[0], CTC[1], CTC[2], [2, 3]), ValueError),
    "ctc_concatenated_targets_short": (lambda: F.ctc_loss(CTC[0], mg.tensor([1, 2, 3]), CTC[2], CTC[3]), ValueError),
    "ctc_float_lengths": (lambda: F.ctc_loss(CTC[0], CTC[1], mg.tensor([6.0, 5.0]), CTC[3]), TypeError),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_refusal_is_a_runtime_error_and_what_it_was(name):
    call, before = CASES[name]
    with pytest.raises(RuntimeError) as caught:
        call()
    assert isinstance(caught.value, before)


@pytest.mark.parametrize("call", [
    lambda: F.conv_transpose2d(X, mg.ones(2, 3, 2, 2, dtype="float64"), padding="same"),
    lambda: F.conv_transpose1d(X[0], mg.ones(2, 3, 2, dtype="float64"), padding="same"),
    lambda: F.conv_transpose3d(X5, mg.ones(2, 3, 2, 2, 2, dtype="float64"), padding="same"),
], ids=["2d", "1d", "3d"])
def test_a_transposed_convolution_refuses_a_padding_word_as_pytorchs_type_error(call):
    # (torch 2.13: "conv_transpose2d(): argument 'padding' must be tuple of ints, not str"; the engine's
    # int() of the word's letters raised "invalid literal for int() with base 10: 's'")
    with pytest.raises(TypeError, match="'padding' must be tuple of ints, not str"):
        call()
