"""The layers, losses and utilities beyond their PyTorch values (those are in
tests/test_vs_torch_reference.py): the strict-device and float32-device runs every layer
gets, recurrent dropout, checkpointing and double backward, padding_idx/max_norm, the
parameter-vector helpers, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import gradcheck, gradgradcheck


class SeqModel(nn.Module):
    """Embedding -> LSTM (2 layers, bidirectional, dropout) -> GRU -> RNN -> Linear."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 5, padding_idx=0, max_norm=2.0)
        self.lstm = nn.LSTM(5, 6, num_layers=2, bidirectional=True, dropout=0.2, batch_first=True)
        self.gru = nn.GRU(12, 4, batch_first=True)
        self.rnn = nn.RNN(4, 4, nonlinearity="relu", batch_first=True)
        self.cell = nn.LSTMCell(4, 3)
        self.gcell = nn.GRUCell(3, 3)
        self.norm = nn.RMSNorm(3)
        self.head = nn.Linear(3, 3)

    def forward(self, ids):
        x, (h, c) = self.lstm(self.emb(ids))
        x, _ = self.gru(x)
        x, _ = self.rnn(x)
        hc = self.cell(x[:, -1])
        return self.head(self.norm(self.gcell(hc[0])))


class ConvModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 4, 3, padding=1)
        self.p1 = nn.MaxPool1d(2)
        self.a1 = nn.AvgPool1d(3, stride=1, padding=1, count_include_pad=False)
        self.up = nn.Unflatten(2, (1, 5))
        self.t = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.gn = nn.GroupNorm(2, 4)
        self.d2 = nn.Dropout2d(0.25)
        self.acts = nn.Sequential(nn.PReLU(4), nn.ELU(0.5), nn.Mish(), nn.Softplus(2.0), nn.Hardtanh(-2, 2),
                                  nn.LogSigmoid())
        self.pool = nn.AdaptiveAvgPool2d((2, 3))
        self.mpool = nn.AdaptiveMaxPool2d(2)
        self.head = nn.Linear(4 * 6 + 4 * 4, 3)

    def forward(self, x):
        x = self.a1(self.p1(self.c1(x)))                 # (N, 4, 5)
        x = self.acts(self.d2(self.gn(self.t(self.up(x)))))  # (N, 4, 2, 10)
        a = mg.reshape(self.pool(x), (x.shape[0], -1))
        b = mg.reshape(self.mpool(x), (x.shape[0], -1))
        return self.head(mg.concatenate([a, b], axis=1))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1, batch_first=True,
                                           norm_first=True, activation="gelu")
        self.enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.enc(x, is_causal=True)[:, -1])


def _data(kind, device):
    rng = np.random.default_rng(0)
    if kind == "seq":
        x = mg.tensor(rng.integers(0, 7, (4, 5)), device=device)
    elif kind == "conv":
        x = mg.tensor(rng.standard_normal((4, 2, 10)).astype(np.float32), device=device)
    else:
        x = mg.tensor(rng.standard_normal((4, 5, 8)).astype(np.float32), device=device)
    return x, mg.tensor(rng.integers(0, 3, 4), device=device)


LOSSES = [
    lambda out, y: F.cross_entropy(out, y, label_smoothing=0.1),
    lambda out, y: F.l1_loss(out, F.one_hot(y, 3).float()) + F.smooth_l1_loss(out, mg.zeros_like(out), beta=0.5),
    lambda out, y: F.huber_loss(out, F.one_hot(y, 3).float(), delta=0.5),
    lambda out, y: F.binary_cross_entropy(mg.sigmoid(out), F.one_hot(y, 3).float()),
    lambda out, y: F.kl_div(F.log_softmax(out, dim=-1), F.softmax(out.detach() * 0.5, dim=-1),
                            reduction="batchmean"),
    lambda out, y: F.cosine_embedding_loss(out, mg.ones_like(out), mg.where(y > 0, 1, -1), margin=0.1),
]


def _train(kind, device, loss_i=0, steps=2):
    mg.manual_seed(0)
    model = {"seq": SeqModel, "conv": ConvModel, "enc": Encoder}[kind]().to(device)
    opt = mg.optim.NAdam(model.parameters(), lr=1e-2)
    x, y = _data(kind, device)
    losses = []
    for _ in range(steps):
        loss = LOSSES[loss_i](model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.numpy().copy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("kind, loss_i", [("seq", 0), ("conv", 1), ("enc", 2), ("seq", 3), ("conv", 4),
                                          ("enc", 5)])
def test_layers_and_losses_on_the_strict_device_match_the_cpu_bitwise(kind, loss_i):
    cpu = _train(kind, "cpu", loss_i)
    strict = _train(kind, "strict", loss_i)
    assert strict[0] == cpu[0]
    for k in cpu[1]:
        np.testing.assert_array_equal(strict[1][k], cpu[1][k], err_msg=k)


@pytest.mark.parametrize("kind, loss_i", [("seq", 1), ("conv", 3), ("enc", 0), ("conv", 5), ("seq", 4),
                                          ("enc", 2)])
def test_layers_and_losses_in_float32_never_create_float64(kind, loss_i):
    losses, state = _train(kind, "strict-f32", loss_i)  # any float64 array raises on this device
    assert all(np.isfinite(losses))
    assert all(v.dtype != np.float64 for v in state.values())


# ------------------------------------------------------------------ recurrent
def test_recurrent_dropout_only_between_layers_and_only_in_training():
    mg.manual_seed(0)
    a = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    b = nn.LSTM(3, 4, num_layers=2)
    b.load_state_dict(a.state_dict())
    x = mg.randn(5, 2, 3)
    a.eval()
    np.testing.assert_array_equal(a(x)[0].numpy(), b(x)[0].numpy())
    a.train()
    assert not np.array_equal(a(x)[0].numpy(), b(x)[0].numpy())
    with pytest.warns(UserWarning, match="got dropout=0.5 and num_layers=1") as caught:
        one = nn.GRU(3, 4, dropout=0.5)  # one layer: nothing to drop between (PyTorch's warning)
    assert caught[0].filename == __file__  # pointed at the caller's line
    one2 = nn.GRU(3, 4)
    one2.load_state_dict(one.state_dict())
    np.testing.assert_array_equal(one(x)[0].numpy(), one2(x)[0].numpy())


def test_rnn_cell_repr_names_a_relu_as_pytorch():
    # repr(torch.nn.RNNCell(3, 4, bias=False, nonlinearity="relu")); torch's RNN leaves it out
    assert repr(nn.RNNCell(3, 4, bias=False, nonlinearity="relu")) == "RNNCell(3, 4, bias=False, nonlinearity=relu)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"


def test_final_states_are_the_last_outputs():
    mg.manual_seed(1)
    m = nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    out, h = m(mg.randn(2, 5, 3))
    assert out.shape == (2, 5, 8) and h.shape == (4, 2, 4)
    np.testing.assert_array_equal(h[2].numpy(), out[:, -1, :4].numpy())  # last layer, forward
    np.testing.assert_array_equal(h[3].numpy(), out[:, 0, 4:].numpy())   # last layer, reverse


def test_lstm_checkpointed_gives_the_same_gradients():
    mg.manual_seed(2)
    m = nn.LSTM(3, 4, num_layers=2, dtype="float64")
    x = mg.randn(6, 2, 3, dtype="float64", requires_grad=True)

    def run(use_ckpt):
        for p in list(m.parameters()) + [x]:
            p.grad = None
        f = (lambda t: m(t)[0]) if not use_ckpt else (lambda t: mg.checkpoint.checkpoint(lambda u: m(u)[0], t))
        (f(x) ** 2).sum().backward()
        return [p.grad.numpy().copy() for p in m.parameters()] + [x.grad.numpy().copy()]

    for a, b in zip(run(False), run(True)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_recurrent_layers_differentiate_twice(cls):
    mg.manual_seed(3)
    m = cls(2, 2, dtype="float64")
    x = mg.randn(3, 1, 2, dtype="float64", requires_grad=True)
    gradcheck(lambda t: m(t)[0], (x,))
    gradgradcheck(lambda t: m(t)[0], (x,))


def test_recurrent_errors_are_clear():
    m = nn.LSTM(3, 4, num_layers=2)
    with pytest.raises(ValueError, match=r"LSTM: input\.size\(-1\) must be equal to input_size\. Expected 3, got 4 "
                                         r"\(input of shape \(5, 2, 4\)\)"):
        m(mg.randn(5, 2, 4))
    with pytest.raises(ValueError, match=r"^Expected hidden\[0\] size \(2, 2, 4\), got \[1, 2, 4\] \(LSTM: h_0 must "
                                         r"have shape \(2, 2, 4\) \(num_layers \* num_directions, batch, "
                                         r"hidden_size\), got \(1, 2, 4\)\)$"):
        m(mg.randn(5, 2, 3), (mg.randn(1, 2, 4), mg.randn(2, 2, 4)))
    with pytest.raises(TypeError, match="pair"):
        m(mg.randn(5, 2, 3), mg.randn(2, 2, 4))
    with pytest.raises(TypeError, match=r"LSTM: RNN input dtype \(float64\) does not match weight dtype \(float32\)\. "
                                        r"Convert input: input\.to\(float32\), or convert model: "
                                        r"model\.to\(float64\)"):
        m(mg.randn(5, 2, 3, dtype="float64"))
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout"):
        nn.GRU(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match=r"GRUCell: input has inconsistent input_size: got 5 expected 3 \(expected "
                                         r"input of shape \(N, 3\) or \(3,\), got \(2, 5\)\)"):
        nn.GRUCell(3, 4)(mg.randn(2, 5))


def test_recurrent_parameter_names_are_pytorchs():
    names = [n for n, _ in nn.LSTM(3, 4, num_layers=2, bidirectional=True).named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse"]
    assert len(names) == 16 and "bias_hh_l1_reverse" in names
    assert [n for n, _ in nn.GRUCell(3, 4, bias=False).named_parameters()] == ["weight_ih", "weight_hh"]
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
    names = dict(enc.named_parameters())
    assert "layers.1.self_attn.in_proj_weight" in names and "layers.0.linear2.bias" in names
    # the copies start equal (PyTorch deep-copies the layer) but are separate parameters
    a, b = names["layers.0.linear1.weight"], names["layers.1.linear1.weight"]
    assert a is not b and np.array_equal(a.numpy(), b.numpy())


# ------------------------------------------------------------------ embedding
def test_embedding_padding_idx_gets_no_gradient_and_starts_at_zero():
    mg.manual_seed(0)
    e = nn.Embedding(5, 3, padding_idx=-1)
    assert e.padding_idx == 4 and not e.weight.numpy()[4].any()
    with mg.no_grad():
        e.weight[4] = 1.0
    out = e(mg.tensor([[4, 1], [1, 4]]))
    np.testing.assert_array_equal(out.numpy()[0, 0], [1.0, 1.0, 1.0])  # looked up as usual
    out.sum().backward()
    assert not e.weight.grad.numpy()[4].any() and (e.weight.grad.numpy()[1] == 2).all()


def test_embedding_max_norm_renormalizes_looked_up_rows_in_place():
    mg.manual_seed(0)
    e = nn.Embedding(4, 3, max_norm=1.0)
    with mg.no_grad():
        e.weight.copy_(mg.tensor(np.full((4, 3), 2.0, dtype=np.float32)))
    v0 = e.weight._version
    e(mg.tensor([1, 1, 2]))
    norms = np.linalg.norm(e.weight.numpy(), axis=1)
    np.testing.assert_allclose(norms[[1, 2]], 1.0, rtol=1e-6)
    assert norms[0] == norms[3] == pytest.approx(np.sqrt(12))  # rows not looked up are left alone
    assert e.weight._version > v0  # an in-place change: a graph that saved the old weight refuses


# ------------------------------------------------------------------ utilities
def test_parameters_to_vector_and_back():
    mg.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    v = nn.utils.parameters_to_vector(m.parameters())
    assert v.shape == (11,)
    (v * mg.arange(11, dtype="float32")).sum().backward()  # differentiable, as in PyTorch
    assert m[0].weight.grad.numpy().ravel().tolist() == [0, 1, 2, 3, 4, 5]
    nn.utils.vector_to_parameters(mg.arange(11, dtype="float32"), m.parameters())
    assert m[1].bias.tolist() == [10.0] and m[0].weight.numpy()[1].tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="12 values"):
        nn.utils.vector_to_parameters(mg.zeros(12), m.parameters())
    with pytest.raises(TypeError, match="1-D"):
        nn.utils.vector_to_parameters(mg.zeros(11, 1), m.parameters())


@pytest.mark.parametrize("layer, shape, out_shape", [
    (lambda: nn.Unflatten(1, (2, -1)), (3, 8), (3, 2, 4)),
    (lambda: nn.Conv1d(2, 4, 3, stride=2), (5, 2, 9), (5, 4, 4)),
    (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2), (1, 2, 4, 5), (1, 3, 9, 11)),
    (lambda: nn.ConvTranspose2d(2, 4, 2, stride=2, groups=2), (2, 3, 3), (4, 6, 6)),
    (lambda: nn.AdaptiveAvgPool2d((3, None)), (2, 3, 7, 5), (2, 3, 3, 5)),
    (lambda: nn.AdaptiveMaxPool2d(1), (3, 7, 5), (3, 1, 1)),
    (lambda: nn.MaxPool1d(3, stride=2), (2, 3, 9), (2, 3, 4)),
    (lambda: nn.AvgPool1d(2), (3, 8), (3, 4)),
    (lambda: nn.GroupNorm(3, 6), (2, 6, 4), (2, 6, 4)),
    (lambda: nn.RMSNorm((2, 3)), (4, 2, 3), (4, 2, 3)),
    (lambda: nn.Dropout2d(), (2, 3, 4, 4), (2, 3, 4, 4)),
])
def test_shapes(layer, shape, out_shape):
    mg.manual_seed(0)
    assert layer()(mg.randn(*shape)).shape == out_shape


def test_dropout2d_drops_whole_channels_and_replays_exactly():
    mg.manual_seed(0)
    x = mg.ones(8, 16, 3, 3, requires_grad=True)
    y = F.dropout2d(x, 0.5)
    per_channel = y.numpy().reshape(8, 16, 9)
    assert set(np.unique(per_channel.std(axis=2))) == {0.0}  # a channel is all kept or all dropped
    assert set(np.unique(per_channel)) == {0.0, 2.0}
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())


def test_loss_and_layer_arguments_are_checked():
    # PyTorch's: a warning for the differing shapes, then broadcasting's error
    with pytest.warns(UserWarning, match="different to the input size"), pytest.raises(RuntimeError, match="broadcast"):
        F.l1_loss(mg.zeros(3), mg.zeros(4))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        F.binary_cross_entropy(mg.tensor([1.5]), mg.tensor([1.0]))
    with pytest.raises(ValueError, match="batchmean"):
        F.kl_div(mg.zeros(3), mg.zeros(3), reduction="avg")
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="output_padding"):
        F.conv_transpose2d(mg.zeros(1, 2, 3, 3), mg.zeros(2, 2, 3, 3), stride=1, output_padding=1)
    with pytest.raises(ValueError, match="min_val"):
        nn.Hardtanh(2, 1)
    with pytest.raises(TypeError, match="TransformerEncoderLayer"):
        nn.TransformerEncoder(nn.Linear(2, 2), 2)
    with pytest.raises(ValueError, match="divisor_override"):
        nn.AvgPool2d(2, divisor_override=0)(mg.zeros(1, 1, 2, 2))


def test_binary_cross_entropy_is_nan_free_at_zero_and_one():
    p = mg.tensor([0.0, 1.0, 0.0, 1.0], dtype="float64", requires_grad=True)
    y = mg.tensor([0.0, 1.0, 1.0, 0.0], dtype="float64")
    loss = F.binary_cross_entropy(p, y, reduction="none")
    assert loss.tolist() == [0.0, 0.0, 100.0, 100.0]  # PyTorch's clamp at -100
    loss.sum().backward()
    assert np.isfinite(p.grad.numpy()).all()


def test_kl_div_treats_zero_targets_as_zero():
    x = mg.tensor([-1.0, -2.0], dtype="float64", requires_grad=True)
    t = mg.tensor([0.0, 1.0], dtype="float64", requires_grad=True)
    loss = F.kl_div(x, t, reduction="sum")
    assert loss.item() == pytest.approx(2.0)
    loss.backward()
    assert x.grad.tolist() == [0.0, -1.0] and np.isfinite(t.grad.numpy()).all()


def test_rnn_cell_base_is_pytorchs_base_of_the_cells():
    """``nn.RNNCellBase`` was missing (``isinstance(m, nn.RNNCellBase)`` in a PyTorch init loop was an
    AttributeError); torch's signature ``RNNCellBase(input_size, hidden_size, bias, num_chunks)``."""
    assert all(isinstance(c, nn.RNNCellBase) for c in (nn.RNNCell(3, 4), nn.LSTMCell(3, 4), nn.GRUCell(3, 4)))
    assert not isinstance(nn.LSTM(3, 4), nn.RNNCellBase)
    base = nn.RNNCellBase(3, 4, bias=False, num_chunks=2)
    assert [(k, tuple(v.shape)) for k, v in base.state_dict().items()] == [("weight_ih", (8, 3)), ("weight_hh", (8, 4))]
    with pytest.raises(NotImplementedError):
        base(mg.zeros(2, 3))


class _Halved(nn.Module):
    def forward(self, w):
        return w * 0.5


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_recurrent_weights_under_weight_norm_and_parametrizations(kind):
    """``weight_norm(lstm, "weight_hh_l0")`` (AWD-LSTM's weight drop does the same) and a registered
    parametrization of ``weight_ih_l0`` were AttributeErrors: the layer read its weights from the
    parameter table, not where the hook or parametrization computes them.  PyTorch reads them there."""
    mg.manual_seed(0)
    kw = dict(bidirectional=True, proj_size=2) if kind == "LSTM" else dict(bidirectional=True)
    m, plain = getattr(nn, kind)(3, 4, **kw), getattr(nn, kind)(3, 4, **kw)
    plain.load_state_dict(m.state_dict())
    with mg.no_grad():
        plain.weight_ih_l0.mul_(0.5)
    nn.utils.weight_norm(m, "weight_hh_l0_reverse")  # the same weight at first: g = |v|, v = w
    nn.utils.parametrize.register_parametrization(m, "weight_ih_l0", _Halved())
    if kind == "LSTM":
        nn.utils.weight_norm(m, "weight_hr_l0")
    x = mg.randn(5, 2, 3)
    out = m(x)[0]
    np.testing.assert_allclose(out.numpy(), plain(x)[0].numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert m.weight_hh_l0_reverse_g.grad is not None and m.parametrizations.weight_ih_l0.original.grad is not None
