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
    "pad_crops_everything": (lambda: F.pad(X, (-4, -4)), ValueError),  # narrow(): length must be non-negative.
    "nll_weight_per_class": (lambda: F.nll_loss(X[0], mg.tensor([[0] * 7] * 2), weight=mg.ones(3, dtype="float64")),
                             ValueError),  # weight tensor should be defined either for all or no classes
    "cosine_embedding_target_shape": (lambda: F.cosine_embedding_loss(X[0, 0], X[0, 1], mg.ones(3)), ValueError),
    "multilabel_margin_target_shape": (lambda: F.multilabel_margin_loss(X[0, 0], mg.tensor([[0, 1]] * 6)),
                                       ValueError),  # inconsistent target size: [6, 2] for input of size: [6, 7]
    "cosine_similarity_shapes": (lambda: F.cosine_similarity(X, X[:, :1, :, :6] * mg.ones(1, 3, 1, 1)), ValueError),
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


def test_integer_arguments_refuse_floats_and_bools_as_pytorchs_parser():
    # (torch 2.13: "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type float
    # at pos 0"; "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not float"; int() had
    # taken 1.5 as 1 and True as 1)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float at pos 0"):
        F.pad(X, (1.5, 1))
    with pytest.raises(TypeError, match="type bool at pos 1"):
        F.pad(X, (1, True))
    with pytest.raises(TypeError, match="'upscale_factor' \\(position 2\\) must be int, not float"):
        F.pixel_shuffle(mg.ones(1, 4, 2, 2), 1.5)
    with pytest.raises(TypeError, match="'downscale_factor' \\(position 2\\) must be int, not bool"):
        F.pixel_unshuffle(mg.ones(1, 1, 2, 2), True)
    # integers of any kind still count, a 0-d integer tensor too
    assert F.pad(X, (np.int64(1), mg.tensor(2))).shape == (1, 2, 6, 10)
    assert F.pixel_shuffle(mg.ones(1, 4, 2, 2), np.int32(2)).shape == (1, 1, 4, 4)


def test_embedding_bag_refuses_what_pytorch_refuses():
    w, ids = mg.ones(6, 3, dtype="float64"), mg.tensor([1, 2, 3])
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor"):  # it was read flat
        F.embedding_bag(ids, w, mg.tensor([[0, 1]]))
    with pytest.raises(RuntimeError, match="offsets must be integers"):  # it was cast to int64
        F.embedding_bag(ids, w, mg.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="padding_idx must be within the number of embeddings, -6 through 5, "
                                           "but got 6"):  # it was taken modulo 6: row 0
        F.embedding_bag(ids, w, mg.tensor([0, 1]), padding_idx=6)
    with pytest.raises(ValueError, match="weight has to be a 2D Tensor, but got Tensor of dimension 1"):
        F.embedding_bag(ids, mg.ones(6, dtype="float64"), mg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="weight has to be a 2D Tensor"):
        F.embedding_bag(ids, mg.ones(6, dtype="float64"), mg.tensor([0, 1]))
    out = F.embedding_bag(ids, w, mg.tensor([0, 1], dtype="int32"), padding_idx=-6)  # -6 is row 0: valid
    assert out.shape == (2, 3)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", [
    ((2, 0, 3), (1, 1)), ((0, 3), (1, 1)), ((3, 0), (1, 1)), ((2, 2, 0, 3), (1, 1, 0, 0)),
    ((2, 2, 3, 0), (0, 0, 1, 1)), ((2, 0, 3, 3, 3), (1,) * 6), ((2, 0, 3), (0, 0)),
])
def test_reflect_and_replicate_padding_refuse_an_empty_plane(mode, shape, pad):
    # (torch 2.13: "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero
    # dimensions for input, but got: [2, 0, 3]"; the engine answered an empty tensor)
    with pytest.raises(RuntimeError, match="possibly 0 batch size and other non-zero dimensions"):
        F.pad(mg.zeros(*shape), pad, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_an_empty_batch_is_still_padded(mode):
    assert F.pad(mg.zeros(0, 3, 3), (1, 1), mode=mode).shape == (0, 3, 5)
    assert F.pad(mg.zeros(0, 2, 3, 3, 3), (1,) * 6, mode=mode).shape == (0, 2, 5, 5, 5)
    assert F.pad(mg.zeros(2, 0, 3), (1, 1), mode="circular").shape == (2, 0, 5)  # (circular takes it, as PyTorch's)


@pytest.mark.parametrize("shape", [(0, 2, 3), (5, 0, 3), (5, 2, 0), (0, 3)])
def test_ctc_loss_of_empty_log_probs_is_refused(shape):
    # (torch 2.13: "log_probs tensor must not be empty"; the engine answered a loss over no samples)
    n = shape[1] if len(shape) == 3 else 1
    targets = mg.zeros(n, 0, dtype="int64") if len(shape) == 3 else mg.zeros(0, dtype="int64")
    lengths = [shape[0]] * n if len(shape) == 3 else shape[0]
    with pytest.raises(RuntimeError, match="log_probs tensor must not be empty"):
        F.ctc_loss(mg.zeros(*shape), targets, lengths, [0] * n if len(shape) == 3 else 0)
