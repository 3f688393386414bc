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
