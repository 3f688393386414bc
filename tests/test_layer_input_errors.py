"""An input a layer cannot take raises PyTorch's exception type: ``RuntimeError`` where torch 2.13 raises it
(the message torch gives is quoted beside each case), so ``except RuntimeError`` written for PyTorch catches
it.  The engine raised ``ValueError`` for all of these; the new error, ``InputMismatch``, is both, so
NumPy-style handlers still catch it.  Cases where torch raises ``ValueError`` (an RNN input of 4 dims, one
value per channel in training) or ``IndexError`` keep theirs."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

nn, F = mg.nn, mg.nn.functional
r = mg.randn

RUNTIME_ERRORS = {
    # torch: "mat1 and mat2 shapes cannot be multiplied (2x5 and 3x4)"
    "Linear input": lambda: nn.Linear(3, 4)(r(2, 5)),
    "linear bias": lambda: F.linear(r(2, 3), r(4, 3), r(3)),
    "linear 3-D weight": lambda: F.linear(r(2, 3), r(4, 3, 1)),
    "bilinear": lambda: nn.Bilinear(2, 3, 4)(r(2, 2), r(2, 2)),
    # "Given groups=1, weight of size [4, 3, 3, 3], expected input[2, 5, 7, 7] to have 3 channels, ..."
    "Conv2d channels": lambda: nn.Conv2d(3, 4, 3)(r(2, 5, 7, 7)),
    "Conv1d of 4-D input": lambda: nn.Conv1d(3, 4, 3)(r(2, 3, 5, 5)),
    "Conv3d channels": lambda: nn.Conv3d(2, 2, 3)(r(1, 3, 4, 4, 4)),
    "conv2d groups": lambda: F.conv2d(r(1, 4, 5, 5), r(4, 3, 3, 3), groups=2),
    "conv2d bias": lambda: F.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), r(3)),
    # "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater ..."
    "Conv2d input too small": lambda: nn.Conv2d(3, 4, 3)(r(2, 3, 2, 2)),
    "conv3d input too small": lambda: F.conv3d(r(1, 1, 2, 5, 5), r(1, 1, 3, 3, 3)),
    "conv_transpose2d channels": lambda: F.conv_transpose2d(r(1, 2, 4, 4), r(3, 4, 3, 3)),
    "conv_transpose2d output too small": lambda: F.conv_transpose2d(r(1, 3, 1, 1), r(3, 4, 3, 3), padding=3),
    "ConvTranspose2d output_padding": lambda: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2)(r(1, 3, 4, 4)),
    # "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"
    "MaxPool2d padding": lambda: nn.MaxPool2d(2, padding=2)(r(2, 3, 5, 5)),
    "AvgPool2d padding": lambda: nn.AvgPool2d(2, padding=2)(r(2, 3, 5, 5)),
    "MaxPool3d padding": lambda: nn.MaxPool3d(2, padding=2)(r(1, 1, 5, 5, 5)),
    # "Given input size: (3x3x3). Calculated output size: (3x0x0). Output size is too small"
    "MaxPool2d input too small": lambda: nn.MaxPool2d(4)(r(2, 3, 3, 3)),
    "MaxPool2d kernel 0": lambda: nn.MaxPool2d(0)(r(1, 3, 4, 4)),  # "stride should not be zero"
    "avg_pool2d divisor 0": lambda: F.avg_pool2d(r(1, 1, 4, 4), 2, divisor_override=0),
    "adaptive_avg_pool2d of an empty plane": lambda: F.adaptive_avg_pool2d(r(1, 1, 0, 4), 2),
    "max_pool2d of a 1-D input": lambda: F.max_pool2d(r(4), 2),
    # "running_mean should contain 5 elements not 3"
    "BatchNorm1d channels": lambda: nn.BatchNorm1d(3)(r(4, 5)),
    "batch_norm running shape": lambda: F.batch_norm(r(4, 3), mg.zeros(2), mg.ones(2)),
    # "Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[4, 3]"
    "LayerNorm shape": lambda: nn.LayerNorm(5)(r(4, 3)),
    "rms_norm shape": lambda: F.rms_norm(r(2, 3), (4,)),
    "GroupNorm channels": lambda: nn.GroupNorm(2, 4)(r(3, 5, 2)),
    "group_norm divisibility": lambda: F.group_norm(r(2, 3, 4), 2),
    # "input.size(-1) must be equal to input_size. Expected 3, got 4"
    "LSTM input size": lambda: nn.LSTM(3, 4)(r(5, 2, 4)),
    "GRU h_0 shape": lambda: nn.GRU(3, 4)(r(5, 2, 3), r(1, 3, 4)),  # "Expected hidden size (1, 2, 4), got [1, 3, 4]"
    "RNN empty sequence": lambda: nn.RNN(3, 4)(r(0, 2, 3)),
    "RNNCell input size": lambda: nn.RNNCell(3, 4)(r(2, 5)),  # "input has inconsistent input_size: got 5 expected 3"
    "GRUCell state": lambda: nn.GRUCell(3, 4)(r(2, 3), r(3, 4)),
    "PixelShuffle channels": lambda: nn.PixelShuffle(2)(r(1, 3, 2, 2)),
    "pixel_unshuffle height": lambda: F.pixel_unshuffle(r(1, 2, 3, 3), 2),
    "channel_shuffle groups": lambda: F.channel_shuffle(r(1, 3, 2, 2), 2),
    "binary_cross_entropy range": lambda: F.binary_cross_entropy(mg.tensor([1.5, 0.2]), mg.tensor([1.0, 0.0])),
    "cross_entropy label_smoothing": lambda: F.cross_entropy(r(3, 4), mg.tensor([0, 1, 2]), label_smoothing=1.5),
    "TransformerEncoderLayer activation": lambda: nn.TransformerEncoderLayer(8, 2, activation="foo"),
}


@pytest.mark.parametrize("case", sorted(RUNTIME_ERRORS))
def test_pytorchs_runtime_error(case):
    with pytest.raises(RuntimeError) as caught:
        RUNTIME_ERRORS[case]()
    assert isinstance(caught.value, ValueError)  # what the engine raised before: still caught


VALUE_ERRORS = {  # torch 2.13 raises ValueError for these
    "RNN of a 4-D input": lambda: nn.RNN(3, 4)(r(2, 3, 4, 3)),  # "RNN: Expected input to be 2D or 3D, got 4D"
    "BatchNorm1d one value per channel": lambda: nn.BatchNorm1d(3)(r(1, 3)),
    "instance_norm one spatial element": lambda: F.instance_norm(r(2, 3, 1)),
}


@pytest.mark.parametrize("case", sorted(VALUE_ERRORS))
def test_pytorchs_value_error(case):
    with pytest.raises(ValueError) as caught:
        VALUE_ERRORS[case]()
    assert not isinstance(caught.value, RuntimeError)


def test_adaptive_avg_pool_answers_an_empty_channel_dim_and_refuses_an_empty_plane():
    """PyTorch's adaptive_avg_pool1d/2d answer a (1, 0, 3, 3) input but refuse an empty spatial dim with
    RuntimeError (the evenly-dividing shortcut let an empty plane through to an answer)."""
    assert F.adaptive_avg_pool2d(r(1, 0, 3, 3), 2).shape == (1, 0, 2, 2)
    assert F.adaptive_avg_pool1d(r(1, 0, 4), 2).shape == (1, 0, 2)
    for shape, dim in (((1, 2, 0, 4), 2), ((2, 0, 4), 1), ((1, 2, 4, 0), 3)):
        with pytest.raises(RuntimeError, match=f"with dimension {dim} being empty"):
            F.adaptive_avg_pool2d(r(*shape), 2)
