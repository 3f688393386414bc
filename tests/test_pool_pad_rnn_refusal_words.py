"""Refusals of the pooling, padding and recurrent layers in PyTorch's words and classes.

Each message's start is pasted from torch 2.13 (a probe printed ``type(e).__name__`` and ``str(e)``
for the same call); the engine's own explanation follows it in parentheses.  The classes are the
engine's, each also PyTorch's (``InputMismatch`` is a ``RuntimeError``, ``ModeNotImplemented`` a
``NotImplementedError``) and the ``ValueError`` the engine raised before.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

F = nn.functional


def zeros(*shape):
    return mg.tensor(np.zeros(shape, dtype=np.float32))


SUPPORTED = ("Supported combinations for non-constant padding:\n"
             "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
             "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
             "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


@pytest.mark.parametrize("layer, shape, torch_words", [
    (nn.ReflectionPad1d, (1, 1, 3, 4), "Padding size 2 is not supported for 4D input tensor."),
    (nn.ReflectionPad2d, (3, 4), "Padding size 4 is not supported for 2D input tensor."),
    (nn.ReflectionPad3d, (3, 3, 4), "Padding size 6 is not supported for 3D input tensor."),
    (nn.ReplicationPad1d, (1, 1, 3, 4), "Padding size 2 is not supported for 4D input tensor."),
    (nn.ReplicationPad2d, (3, 4), "Padding size 4 is not supported for 2D input tensor."),
    (nn.ReplicationPad3d, (3, 3, 4), "Padding size 6 is not supported for 3D input tensor."),
])
def test_reflection_and_replication_layers_refuse_a_rank_as_pytorchs_f_pad(layer, shape, torch_words):
    spatial = int(layer.__name__[-2])
    with pytest.raises(NotImplementedError) as info:  # PyTorch's class (the engine's ValueError before)
        layer(1)(zeros(*shape))
    assert isinstance(info.value, ValueError)
    ours = (f"({layer.__name__}: expected {spatial + 1}D or {spatial + 2}D input (got {len(shape)}D input))")
    assert str(info.value) == f"{torch_words}\n{SUPPORTED}\n{ours}"


def test_circular_pad_layer_keeps_its_own_check():
    # torch: ValueError 'expected 3D or 4D input (got 2D input)' (CircularPad checks the rank itself)
    with pytest.raises(ValueError, match=r"^CircularPad2d: expected 3D or 4D input \(got 2D input\)$"):
        nn.CircularPad2d(1)(zeros(3, 4))


def _rnn(kind, **kw):
    return getattr(nn, kind)(10, 20, **kw)


STATE_CASES = {
    # name: (call, PyTorch's words, the engine's after them)
    "RNN hidden size": (lambda: _rnn("RNN")(zeros(5, 3, 10), zeros(1, 3, 21)),
                        "Expected hidden size (1, 3, 20), got [1, 3, 21]",
                        "RNN: h_0 must have shape (1, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                        "got (1, 3, 21)"),
    "GRU batch": (lambda: _rnn("GRU")(zeros(5, 3, 10), zeros(1, 4, 20)),
                  "Expected hidden size (1, 3, 20), got [1, 4, 20]",
                  "GRU: h_0 must have shape (1, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                  "got (1, 4, 20)"),
    "GRU bidirectional": (lambda: _rnn("GRU", bidirectional=True)(zeros(5, 3, 10), zeros(1, 3, 20)),
                          "Expected hidden size (2, 3, 20), got [1, 3, 20]",
                          "GRU: h_0 must have shape (2, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                          "got (1, 3, 20)"),
    "RNN batch_first": (lambda: _rnn("RNN", batch_first=True)(zeros(5, 3, 10), zeros(1, 3, 20)),
                        "Expected hidden size (1, 5, 20), got [1, 3, 20]",
                        "RNN: h_0 must have shape (1, 5, 20) (num_layers * num_directions, batch, hidden_size), "
                        "got (1, 3, 20)"),
    "RNN unbatched": (lambda: _rnn("RNN")(zeros(5, 10), zeros(1, 21)),
                      "Expected hidden size (1, 1, 20), got [1, 1, 21]",
                      "RNN: h_0 must have shape (1, 20) (num_layers * num_directions, batch, hidden_size), "
                      "got (1, 21)"),
    "LSTM h_0": (lambda: _rnn("LSTM")(zeros(5, 3, 10), (zeros(1, 3, 21), zeros(1, 3, 20))),
                 "Expected hidden[0] size (1, 3, 20), got [1, 3, 21]",
                 "LSTM: h_0 must have shape (1, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                 "got (1, 3, 21)"),
    "LSTM c_0": (lambda: _rnn("LSTM")(zeros(5, 3, 10), (zeros(1, 3, 20), zeros(1, 3, 21))),
                 "Expected hidden[1] size (1, 3, 20), got [1, 3, 21]",
                 "LSTM: c_0 must have shape (1, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                 "got (1, 3, 21)"),
    "LSTM two layers": (lambda: _rnn("LSTM", num_layers=2)(zeros(5, 3, 10), (zeros(1, 3, 20), zeros(2, 3, 20))),
                        "Expected hidden[0] size (2, 3, 20), got [1, 3, 20]",
                        "LSTM: h_0 must have shape (2, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                        "got (1, 3, 20)"),
    "LSTM proj_size": (lambda: _rnn("LSTM", proj_size=5)(zeros(5, 3, 10), (zeros(1, 3, 20), zeros(1, 3, 20))),
                       "Expected hidden[0] size (1, 3, 5), got [1, 3, 20]",
                       "LSTM: h_0 must have shape (1, 3, 5) (num_layers * num_directions, batch, proj_size), "
                       "got (1, 3, 20)"),
    "LSTM unbatched c_0": (lambda: _rnn("LSTM")(zeros(5, 10), (zeros(1, 20), zeros(1, 21))),
                           "Expected hidden[1] size (1, 1, 20), got [1, 1, 21]",
                           "LSTM: c_0 must have shape (1, 20) (num_layers * num_directions, batch, hidden_size), "
                           "got (1, 21)"),
    "RNN 3-D state, unbatched input": (lambda: _rnn("RNN")(zeros(5, 10), zeros(1, 1, 20)),
                                       "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor",
                                       "RNN: h_0 must have shape (1, 20) (num_layers * num_directions, batch, "
                                       "hidden_size), got (1, 1, 20)"),
    "GRU 2-D state, batched input": (lambda: _rnn("GRU")(zeros(5, 3, 10), zeros(1, 20)),
                                     "For batched 3-D input, hx should also be 3-D but got 2-D tensor",
                                     "GRU: h_0 must have shape (1, 3, 20) (num_layers * num_directions, batch, "
                                     "hidden_size), got (1, 20)"),
    "LSTM mixed ranks": (lambda: _rnn("LSTM")(zeros(5, 3, 10), (zeros(1, 3, 20), zeros(3, 20))),
                         "For batched 3-D input, hx and cx should also be 3-D but got (3-D, 2-D) tensors",
                         "LSTM: c_0 must have shape (1, 3, 20) (num_layers * num_directions, batch, hidden_size), "
                         "got (3, 20)"),
}


@pytest.mark.parametrize("name", STATE_CASES)
def test_recurrent_state_shapes_refused_in_pytorchs_words(name):
    call, torch_words, ours = STATE_CASES[name]
    with pytest.raises(RuntimeError) as info:
        call()
    assert isinstance(info.value, ValueError)
    assert str(info.value) == f"{torch_words} ({ours})"



POOL_CASES = {
    # name: (call, PyTorch's words, the start of the engine's after them)
    "max_pool2d kernel 0": (lambda: F.max_pool2d(zeros(2, 3, 8, 8), 0), "stride should not be zero",
                            "max_pool2d: kernel_size, stride and dilation must be >= 1"),
    "max_pool2d kernel -1": (lambda: F.max_pool2d(zeros(2, 3, 8, 8), -1),
                             "kernel size should be greater than zero, but got kH: -1 kW: -1",
                             "max_pool2d: kernel_size, stride and dilation must be >= 1"),
    "max_pool2d kernel (2, 0)": (lambda: F.max_pool2d(zeros(2, 3, 8, 8), (2, 0), stride=1),
                                 "kernel size should be greater than zero, but got kH: 2 kW: 0",
                                 "max_pool2d: kernel_size, stride and dilation must be >= 1"),
    "max_pool2d stride -1": (lambda: F.max_pool2d(zeros(2, 3, 8, 8), 2, stride=-1),
                             "stride should be greater than zero, but got dH: -1 dW: -1",
                             "max_pool2d: kernel_size, stride and dilation must be >= 1"),
    "max_pool2d dilation": (lambda: F.max_pool2d(zeros(2, 3, 8, 8), 2, dilation=(1, -1)),
                            "dilation should be greater than zero, but got dilationH: 1 dilationW: -1",
                            "max_pool2d: kernel_size, stride and dilation must be >= 1"),
    "avg_pool2d kernel 0, stride 1": (lambda: F.avg_pool2d(zeros(2, 3, 8, 8), 0, stride=1),
                                      "kernel size should be greater than zero, but got kH: 0 kW: 0",
                                      "avg_pool2d: kernel_size, stride and dilation must be >= 1"),
    "avg_pool1d kernel -1": (lambda: F.avg_pool1d(zeros(2, 3, 8), -1),
                             "kernel size should be greater than zero, but got kH: 1 kW: -1",
                             "avg_pool1d: kernel_size, stride and dilation must be >= 1"),
    "max_pool3d stride -1": (lambda: F.max_pool3d(zeros(1, 2, 4, 4, 4), 2, stride=-1),
                             "stride should be greater than zero, but got dT: -1 dH: -1 dW: -1",
                             "max_pool3d: kernel_size, stride and dilation must be >= 1"),
    "max_pool3d dilation 0": (lambda: F.max_pool3d(zeros(1, 2, 4, 4, 4), 2, dilation=0),
                              "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0",
                              "max_pool3d: kernel_size, stride and dilation must be >= 1"),
    "avg_pool3d kernel -1": (lambda: F.avg_pool3d(zeros(1, 2, 4, 4, 4), -1),
                             "kernel size should be greater than zero, but got kT: -1 kH: -1 kW: -1",
                             "avg_pool3d: kernel_size, stride and dilation must be >= 1"),
    "max_pool2d too small": (lambda: F.max_pool2d(zeros(2, 3, 8, 8), (3, 9)),
                             "Given input size: (3x8x8). Calculated output size: (3x2x0). Output size is too small",
                             "max_pool2d: kernel (3, 9) (dilation (1, 1), padding (0, 0)) is larger than the input"),
    "max_pool2d dilated too small": (lambda: F.max_pool2d(zeros(3, 8, 8), 3, dilation=4),
                                     "Given input size: (3x8x8). Calculated output size: (3x0x0). Output size is "
                                     "too small", "max_pool2d: kernel (3, 3) (dilation (4, 4)"),
    "avg_pool1d too small": (lambda: F.avg_pool1d(zeros(2, 3, 8), 9),
                             "Given input size: (3x1x8). Calculated output size: (3x1x0). Output size is too small",
                             "avg_pool1d: kernel (1, 9)"),
    "max_pool3d too small": (lambda: F.max_pool3d(zeros(1, 2, 4, 4, 4), 5),
                             "Given input size: (2x4x4x4). Calculated output size: (2x0x0x0). Output size is too "
                             "small", "max_pool3d: kernel (5, 5, 5)"),
    "max_pool1d kernel 0": (lambda: F.max_pool1d(zeros(2, 3, 8), 0),
                            "max_pool1d() kernel_size must be greater than zero, but got 0",
                            "max_pool1d: kernel_size 0, stride 0, padding 0, dilation 1 for a length of 8"),
    "max_pool1d stride -1": (lambda: F.max_pool1d(zeros(2, 3, 8), 2, stride=-1),
                             "max_pool1d() stride must be greater than zero, but got -1", "max_pool1d: "),
    "max_pool1d dilation 0": (lambda: F.max_pool1d(zeros(2, 3, 8), 2, dilation=0),
                              "max_pool1d() dilation must be greater than zero, but got 0", "max_pool1d: "),
    "max_pool1d padding -1": (lambda: F.max_pool1d(zeros(2, 3, 8), 3, padding=-1),
                              "max_pool1d() padding must be non-negative, but got -1", "max_pool1d: "),
    "max_pool1d padding 2": (lambda: F.max_pool1d(zeros(2, 3, 8), 3, padding=2),
                             "max_pool1d() padding should be at most half of kernel size, but got padding=2 and "
                             "kernel_size=3", "max_pool1d: kernel_size 3, stride 3, padding 2, dilation 1"),
    "max_pool1d too small": (lambda: F.max_pool1d(zeros(3, 8), 9),
                             "max_pool1d() Invalid computed output size: 0", "max_pool1d: kernel_size 9"),
    # with return_indices PyTorch's max_pool1d runs max_pool2d's checks, as the engine's
    "max_pool1d indices, kernel 0": (lambda: F.max_pool1d(zeros(2, 3, 8), 0, return_indices=True),
                                     "stride should not be zero", "max_pool1d: kernel_size, stride and dilation"),
    "max_pool1d indices, too small": (lambda: F.max_pool1d(zeros(2, 3, 8), 9, return_indices=True),
                                      "Given input size: (3x1x8). Calculated output size: (3x1x0). Output size is "
                                      "too small", "max_pool1d: kernel (1, 9)"),
}


@pytest.mark.parametrize("name", POOL_CASES)
def test_pool_window_refusals_in_pytorchs_words(name):
    call, torch_words, ours = POOL_CASES[name]
    with pytest.raises(RuntimeError) as info:
        call()
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(f"{torch_words} ({ours}")


@pytest.mark.parametrize("call, error", [
    # torch 2.13's words; (2, 2, 2) for a 2-D average pool was answered (its evenly-dividing fast path read
    # two of the three sizes), (2,) an IndexError
    (lambda: F.adaptive_avg_pool2d(mg.ones(1, 1, 4, 4), (2, 2, 2)), "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: F.adaptive_avg_pool2d(mg.ones(1, 1, 4, 4), (2,)), "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: mg.nn.AdaptiveAvgPool2d((2, 2, 2))(mg.ones(1, 4, 4)), "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: F.adaptive_max_pool2d(mg.ones(1, 1, 4, 4), (2, 2, 2)),
     "adaptive_max_pool2d(): internal error: output_size.size() must be 2"),
    (lambda: F.adaptive_avg_pool3d(mg.ones(1, 1, 4, 4, 4), (2, 2)), "adaptive_avg_pool3d: output_size must be 3"),
    (lambda: F.adaptive_max_pool3d(mg.ones(1, 1, 4, 4, 4), (2, 2)),
     "adaptive_max_pool3d(): internal error: output_size.size() must be 3"),
])
def test_an_adaptive_pools_output_size_of_another_length_is_refused_in_pytorchs_words(call, error):
    with pytest.raises(RuntimeError) as caught:
        call()
    assert str(caught.value).startswith(error)
