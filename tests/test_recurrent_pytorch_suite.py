"""PyTorch's recurrent-layer tests (test/test_nn.py), translated: what they check holds here, against
values computed by hand or by the layers themselves (a packed batch against each sequence run alone).

Found by running test_nn.py's RNN/LSTM/GRU tests on both libraries: every value, final state and
gradient agreed with torch 2.13 (float64, <= 1e-6); two error messages did not carry PyTorch's words,
which its tests match -- ``Expected sequence length to be larger than 0 in RNN`` for an empty
sequence and ``Unknown nonlinearity`` for an RNN's nonlinearity other than tanh/relu.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigrad_ckpt as mg

nn = mg.nn
rnn_utils = mg.nn.utils.rnn


@pytest.mark.parametrize("module", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_error_RNN_seq_len_zero(module, bidirectional):
    rnn = getattr(nn, module)(5, 6, bidirectional=bidirectional)
    for empty in (mg.ones(0, 10, 5), mg.ones(0, 5)):
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
            rnn(empty)


@pytest.mark.parametrize("make", [lambda nl: nn.RNN(1, 10, nonlinearity=nl),
                                  lambda nl: nn.RNNCell(1, 10, nonlinearity=nl)], ids=["RNN", "RNNCell"])
def test_RNN_nonlinearity(make):
    assert make("tanh").nonlinearity == "tanh" and make("relu").nonlinearity == "relu"
    with pytest.raises(ValueError, match="Unknown nonlinearity 'garbage'. Select from 'tanh' or 'relu'."):
        make("garbage")


@pytest.mark.parametrize("p", [0, 0.276, 0.731, 1])
@pytest.mark.parametrize("train", [True, False])
def test_RNN_dropout(p, train):
    """Dropout sits between the layers: with all-ones weights, a ReLU layer of 1000 units sums ten
    ones to 10 each, the next layer sums the 1000 kept (and rescaled) values."""
    rnn = nn.RNN(10, 1000, 2, bias=False, dropout=p, nonlinearity="relu").double()
    rnn.train(train)
    with mg.no_grad():
        for w in (rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.weight_ih_l1, rnn.weight_hh_l1):
            w.fill_(1)
    output, hy = rnn(mg.ones(1, 1, 10, dtype=mg.float64), mg.zeros(2, 1, 1000, dtype=mg.float64))
    out = output.numpy()
    assert out.min() == out.max()
    value = out[0, 0, 0]
    if p == 0 or not train:
        assert value == 10000
    elif p == 1:
        assert value == 0
    else:
        assert 8000 < value < 12000
        kept = value * (1 - p) % 10  # a whole number of tens before the rescaling
        assert min(kept, 10 - kept) < 1e-2
    assert hy.numpy()[0].min() == hy.numpy()[0].max() == 10 and hy.numpy()[1, 0, 0] == value


def _state_list(hidden):
    return list(hidden) if isinstance(hidden, tuple) else [hidden]


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_variable_sequence(mode, bidirectional, enforce_sorted):
    """A packed batch, states given, against each sequence run alone: outputs, ``h_n``/``c_n`` in the
    caller's order and every gradient (PyTorch's ``_test_variable_sequence``, with its modes)."""
    lengths = [10, 10, 6, 2, 2, 1, 1] if enforce_sorted else [2, 10, 1, 6, 2, 10, 1]
    rs = np.random.RandomState(0)
    D, L = (2 if bidirectional else 1), 2
    x = mg.tensor(rs.randn(max(lengths), len(lengths), 3), requires_grad=True)
    rnn = getattr(nn, mode)(3, 4, num_layers=L, bidirectional=bidirectional).double()
    alone = copy.deepcopy(rnn)
    states = [mg.tensor(rs.randn(L * D, len(lengths), 4)) for _ in range(2 if mode == "LSTM" else 1)]
    hx = tuple(states) if mode == "LSTM" else states[0]

    outs, finals = [], []
    for i, n in enumerate(lengths):
        hx_i = tuple(s[:, i:i + 1] for s in states) if mode == "LSTM" else states[0][:, i:i + 1]
        out, hid = alone(x[:n, i:i + 1], hx_i)
        outs.append(mg.cat([out, mg.zeros(max(lengths) - n, 1, 4 * D, dtype=mg.float64)]))
        finals.append(_state_list(hid))
    seq_out = mg.cat(outs, 1)
    packed_out, packed_hidden = rnn(rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted), hx)
    unpacked, unpacked_len = rnn_utils.pad_packed_sequence(packed_out)

    np.testing.assert_allclose(unpacked.numpy(), seq_out.numpy(), rtol=0, atol=1e-12)
    assert unpacked_len.tolist() == lengths
    for got, want in zip(_state_list(packed_hidden), zip(*finals)):
        np.testing.assert_allclose(got.numpy(), mg.cat(list(want), 1).numpy(), rtol=0, atol=1e-12)
    seq_out.sum().backward()
    grad_x = x.grad.numpy().copy()
    x.grad = None
    unpacked.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad_x, rtol=0, atol=1e-12)
    for (name, p1), p2 in zip(rnn.named_parameters(), alone.parameters()):
        np.testing.assert_allclose(p1.grad.numpy(), p2.grad.numpy(), rtol=0, atol=1e-11, err_msg=name)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_projections_lstm_initial_hidden_state(bidirectional):
    rnn = nn.LSTM(30, 20, 2, bidirectional=bidirectional, proj_size=10)
    D = 2 if bidirectional else 1
    x = mg.randn(10, 32, 30)
    out1, (h1, c1) = rnn(x, (mg.zeros(2 * D, 32, 10), mg.zeros(2 * D, 32, 20)))
    out2, (h2, c2) = rnn(x)
    for a, b in ((out1, out2), (h1, h2), (c1, c2)):
        assert np.array_equal(a.numpy(), b.numpy())
    assert out1.shape == (10, 32, 10 * D) and h1.shape == (2 * D, 32, 10) and c1.shape == (2 * D, 32, 20)


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("packed", [False, True])
def test_a_checkpointed_layer_with_dropout_gives_the_plain_runs_bits(mode, packed):
    """The seam of the layers above: inside ``checkpoint`` the backward replays the forward's dropout
    masks, so loss and every gradient are the run without checkpoint's, bit for bit."""
    rnn = getattr(nn, mode)(3, 4, num_layers=3, dropout=0.4, bidirectional=True).double()
    xv = np.random.RandomState(1).randn(6, 3, 3)

    def run(checkpointed):
        x = mg.tensor(xv, requires_grad=True)
        rnn.zero_grad()

        def f(x):
            inp = rnn_utils.pack_padded_sequence(x, [6, 2, 4], enforce_sorted=False) if packed else x
            out, hidden = rnn(inp)
            out = rnn_utils.pad_packed_sequence(out)[0] if packed else out
            return (out ** 2).sum() + sum((h * h).sum() for h in _state_list(hidden))
        mg.manual_seed(7)
        loss = mg.checkpoint.checkpoint(f, x, use_reentrant=False) if checkpointed else f(x)
        loss.backward()
        return [loss.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in rnn.parameters()]

    for a, b in zip(run(False), run(True)):
        assert np.array_equal(a, b)
