"""Checkpointing never costs memory: every ``nn`` layer and functional, run inside a
checkpoint, holds no more at its peak (the memory ledger's) than the same step without
one, and gets bitwise the same gradients.

A segment keeps its inputs and the constants its ops read, and drops everything else;
so a layer that hands an op a copy or a detached view of a value it computed, or builds
a full-size constant a plain run would never keep, makes checkpointing *raise* the peak.
Each case runs twice: on a leaf input (the layer alone), and behind a ``tanh`` inside the
same segment, so that the layer's input is itself a value the segment drops -- a detached
copy of it (``max_pool2d`` passes one) would otherwise be kept.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

IMG = (2, 3, 8, 8)
LAYERS = {
    "Identity": (lambda: nn.Identity(), (4, 6)),
    "Linear": (lambda: nn.Linear(6, 5), (4, 6)),
    "Flatten": (lambda: nn.Flatten(), (2, 3, 4)),
    "Unflatten": (lambda: nn.Unflatten(1, (2, 3)), (4, 6)),
    "Conv1d": (lambda: nn.Conv1d(3, 4, 3, padding=1), (2, 3, 10)),
    "Conv2d": (lambda: nn.Conv2d(3, 4, 3, padding=1), IMG),
    "ConvTranspose2d": (lambda: nn.ConvTranspose2d(3, 4, 3, stride=2), IMG),
    "MaxPool1d": (lambda: nn.MaxPool1d(2), (2, 3, 10)),
    "MaxPool2d": (lambda: nn.MaxPool2d(2), IMG),
    "AvgPool1d": (lambda: nn.AvgPool1d(2), (2, 3, 10)),
    "AvgPool2d": (lambda: nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False), IMG),
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d(3), IMG),
    "AdaptiveMaxPool2d": (lambda: nn.AdaptiveMaxPool2d(3), IMG),
    "LayerNorm": (lambda: nn.LayerNorm(6), (4, 6)),
    "GroupNorm": (lambda: nn.GroupNorm(3, 3), IMG),
    "RMSNorm": (lambda: nn.RMSNorm(6), (4, 6)),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(6), (4, 6)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(3), IMG),
    "Dropout": (lambda: nn.Dropout(0.3), (4, 6)),
    "Dropout2d": (lambda: nn.Dropout2d(0.3), IMG),
    "Embedding": None,  # its input is integer ids: see test_embedding_inside_a_checkpoint
    "ReLU": (lambda: nn.ReLU(), (4, 6)),
    "LeakyReLU": (lambda: nn.LeakyReLU(), (4, 6)),
    "PReLU": (lambda: nn.PReLU(), (4, 6)),
    "GELU": (lambda: nn.GELU(), (4, 6)),
    "SiLU": (lambda: nn.SiLU(), (4, 6)),
    "Mish": (lambda: nn.Mish(), (4, 6)),
    "ELU": (lambda: nn.ELU(), (4, 6)),
    "Softplus": (lambda: nn.Softplus(), (4, 6)),
    "Hardtanh": (lambda: nn.Hardtanh(), (4, 6)),
    "Tanh": (lambda: nn.Tanh(), (4, 6)),
    "Sigmoid": (lambda: nn.Sigmoid(), (4, 6)),
    "LogSigmoid": (lambda: nn.LogSigmoid(), (4, 6)),
    "Softmax": (lambda: nn.Softmax(-1), (4, 6)),
    "LogSoftmax": (lambda: nn.LogSoftmax(-1), (4, 6)),
    "RNN": (lambda: nn.RNN(6, 5), (3, 2, 6)),
    "LSTM": (lambda: nn.LSTM(6, 5), (3, 2, 6)),
    "GRU": (lambda: nn.GRU(6, 5), (3, 2, 6)),
    "RNNCell": (lambda: nn.RNNCell(6, 5), (2, 6)),
    "LSTMCell": (lambda: nn.LSTMCell(6, 5), (2, 6)),
    "GRUCell": (lambda: nn.GRUCell(6, 5), (2, 6)),
    "MultiheadAttention": (lambda: _SelfAttention(nn.MultiheadAttention(6, 2)), (3, 2, 6)),
    "TransformerBlock": (lambda: nn.TransformerBlock(6, 2, causal=True), (2, 3, 6)),
    "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(6, 2, 12, dropout=0.1), (3, 2, 6)),
    "TransformerEncoder": (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(6, 2, 12), 2), (3, 2, 6)),
    "Sequential": (lambda: nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 3)), (4, 6)),
}
CONTAINERS = {"Module", "ModuleList", "ModuleDict", "RNNBase"}  # not layers one can call on a tensor


class _SelfAttention(nn.Module):
    def __init__(self, attn: nn.Module) -> None:
        super().__init__()
        self.attn = attn

    def forward(self, x):
        return self.attn(x, x, x, is_causal=True, attn_mask=None)[0]


mg.manual_seed(0)
W_LINEAR, W_CONV2D, W_CONV1D = (mg.randn(*s, requires_grad=True) for s in [(5, 6), (4, 3, 3, 3), (4, 3, 3)])
W_CONV_T, W_PRELU = mg.randn(3, 4, 3, 3, requires_grad=True), mg.randn(3, requires_grad=True)


FUNCTIONALS = {
    "relu": ((4, 6), lambda x: F.relu(x)),
    "leaky_relu": ((4, 6), lambda x: F.leaky_relu(x, 0.1)),
    "gelu": ((4, 6), lambda x: F.gelu(x)),
    "silu": ((4, 6), lambda x: F.silu(x)),
    "sigmoid": ((4, 6), lambda x: F.sigmoid(x)),
    "tanh": ((4, 6), lambda x: F.tanh(x)),
    "softmax": ((4, 6), lambda x: F.softmax(x, axis=-1)),
    "log_softmax": ((4, 6), lambda x: F.log_softmax(x, axis=-1)),
    "linear": ((4, 6), lambda x: F.linear(x, W_LINEAR)),
    "conv2d": (IMG, lambda x: F.conv2d(x, W_CONV2D, padding=1)),
    "conv1d": ((2, 3, 10), lambda x: F.conv1d(x, W_CONV1D)),
    "conv_transpose2d": (IMG, lambda x: F.conv_transpose2d(x, W_CONV_T, stride=2, padding=1)),
    "max_pool2d": (IMG, lambda x: F.max_pool2d(x, 2)),
    "avg_pool2d": (IMG, lambda x: F.avg_pool2d(x, 2)),
    "max_pool1d": ((2, 3, 10), lambda x: F.max_pool1d(x, 2)),
    "avg_pool1d": ((2, 3, 10), lambda x: F.avg_pool1d(x, 2)),
    "adaptive_avg_pool2d": (IMG, lambda x: F.adaptive_avg_pool2d(x, 3)),
    "adaptive_max_pool2d": (IMG, lambda x: F.adaptive_max_pool2d(x, 3)),
    "layer_norm": ((4, 6), lambda x: F.layer_norm(x, (6,))),
    "group_norm": (IMG, lambda x: F.group_norm(x, 3)),
    "rms_norm": ((4, 6), lambda x: F.rms_norm(x, (6,))),
    "batch_norm": ((4, 6), lambda x: F.batch_norm(x, None, None, training=True)),
    "dropout": ((4, 6), lambda x: F.dropout(x, 0.3)),
    "dropout2d": (IMG, lambda x: F.dropout2d(x, 0.3)),
    "scaled_dot_product_attention": ((2, 3, 4), lambda x: F.scaled_dot_product_attention(x, x, x, is_causal=True)),
    "pad": ((4, 6), lambda x: F.pad(x, (1, 2))),
    "softplus": ((4, 6), lambda x: F.softplus(x)),
    "logsigmoid": ((4, 6), lambda x: F.logsigmoid(x)),
    "mish": ((4, 6), lambda x: F.mish(x)),
    "elu": ((4, 6), lambda x: F.elu(x)),
    "hardtanh": ((4, 6), lambda x: F.hardtanh(x)),
    "prelu": ((2, 3, 4), lambda x: F.prelu(x, W_PRELU)),
}
# Losses take a target, which a checkpoint keeps as one of its inputs while a plain run
# may not save it: their peak may exceed by the target's bytes and no more.
TARGET = mg.tensor(np.random.default_rng(0).random((4, 6)).astype(np.float32))
LABELS = mg.tensor([1, 0, 5, 2])
LOSSES = {
    "cross_entropy": (lambda x: F.cross_entropy(x, LABELS), LABELS),
    "nll_loss": (lambda x: F.nll_loss(F.log_softmax(x, axis=-1), LABELS), LABELS),
    "mse_loss": (lambda x: F.mse_loss(x, TARGET), TARGET),
    "l1_loss": (lambda x: F.l1_loss(x, TARGET), TARGET),
    "smooth_l1_loss": (lambda x: F.smooth_l1_loss(x, TARGET), TARGET),
    "huber_loss": (lambda x: F.huber_loss(x, TARGET), TARGET),
    "binary_cross_entropy_with_logits": (lambda x: F.binary_cross_entropy_with_logits(x, TARGET), TARGET),
    "binary_cross_entropy": (lambda x: F.binary_cross_entropy(F.sigmoid(x), TARGET), TARGET),
    "kl_div": (lambda x: F.kl_div(F.log_softmax(x, axis=-1), TARGET), TARGET),
    "cosine_embedding_loss": (lambda x: F.cosine_embedding_loss(x, TARGET, mg.tensor([1.0, -1.0, 1.0, 1.0])),
                              TARGET),
}
NOT_DIFFERENTIABLE = {"one_hot"}  # integer in, integer out: nothing for a checkpoint to drop
LOSS_LAYERS = {"CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
               "BCEWithLogitsLoss", "KLDivLoss", "CosineEmbeddingLoss"}


def _first(y):
    while isinstance(y, (tuple, list)):
        y = y[0]
    return y


def _step(fn, shape, checkpointed: bool, behind_tanh: bool):
    mg.manual_seed(1)
    x = mg.randn(*shape, requires_grad=True)
    body = (lambda t: fn(mg.tanh(t))) if behind_tanh else fn
    params = [p for p in getattr(fn, "parameters", lambda: [])()]
    for p in params:
        p.grad = None
    with mg.memory.track() as ledger:
        y = ck.checkpoint(body, x) if checkpointed else body(x)
        _first(y).sum().backward()
    return ledger.peak("saved"), [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in params if p.grad is not None]


def _assert_never_worse(fn, shape, behind_tanh, slack=0):
    plain, g_plain = _step(fn, shape, False, behind_tanh)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)  # a one-layer segment may save nothing
        ckpt, g_ckpt = _step(fn, shape, True, behind_tanh)
    assert ckpt <= plain + slack, f"checkpointed peak {ckpt} B > {plain} B without checkpointing"
    assert len(g_plain) == len(g_ckpt)
    for a, b in zip(g_plain, g_ckpt):
        np.testing.assert_array_equal(a, b)


def test_every_layer_and_functional_has_a_case():
    layers = {n for n in nn.__all__ if isinstance(getattr(nn, n), type) and issubclass(getattr(nn, n), nn.Module)}
    assert layers - CONTAINERS - LOSS_LAYERS == set(LAYERS)
    assert set(F.__all__) == set(FUNCTIONALS) | set(LOSSES) | NOT_DIFFERENTIABLE | {"embedding"}


@pytest.mark.parametrize("behind_tanh", [False, True], ids=["alone", "behind-tanh"])
@pytest.mark.parametrize("name", sorted(n for n in LAYERS if LAYERS[n] is not None))
def test_layer_in_a_checkpoint_never_raises_the_peak(name, behind_tanh):
    make, shape = LAYERS[name]
    mg.manual_seed(0)
    layer = make()
    _assert_never_worse(layer, shape, behind_tanh)


@pytest.mark.parametrize("behind_tanh", [False, True], ids=["alone", "behind-tanh"])
@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_functional_in_a_checkpoint_never_raises_the_peak(name, behind_tanh):
    shape, fn = FUNCTIONALS[name]
    _assert_never_worse(fn, shape, behind_tanh)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_in_a_checkpoint_raises_the_peak_by_at_most_its_target(name):
    fn, target = LOSSES[name]
    _assert_never_worse(fn, (4, 6), True, slack=target.numpy().nbytes)


def test_embedding_inside_a_checkpoint():
    mg.manual_seed(0)
    emb = nn.Embedding(10, 6)
    ids = mg.tensor([[1, 2, 2], [0, 9, 1]])
    _assert_never_worse(lambda x: mg.tanh(emb(ids) * x), (2, 3, 6), False)


def _mnist_step(pool, checkpointed: bool):
    """pytorch/examples' MNIST net, with its conv block (conv, relu, conv, relu, pool) checkpointed."""
    mg.manual_seed(0)
    conv1, conv2 = nn.Conv2d(1, 32, 3), nn.Conv2d(32, 64, 3)
    fc1, fc2 = nn.Linear(9216, 128), nn.Linear(128, 10)

    def block(x):
        return pool(F.relu(conv2(F.relu(conv1(x)))), 2)

    x = mg.randn(16, 1, 28, 28)
    target = mg.tensor([i % 10 for i in range(16)])
    ck.reset_statistics()
    with mg.memory.track() as ledger:
        h = ck.checkpoint(block, x) if checkpointed else block(x)
        h = F.dropout(h, 0.25).reshape(h.shape[0], -1)
        h = F.dropout(F.relu(fc1(h)), 0.5)
        F.nll_loss(F.log_softmax(fc2(h), axis=1), target).backward()
    return ledger.peak("saved"), conv1.weight.grad.numpy().copy(), ck.statistics().memory_saved_bytes


@pytest.mark.parametrize("pool", [F.max_pool2d, F.avg_pool2d], ids=["max_pool2d", "avg_pool2d"])
def test_mnist_conv_block_checkpoint_lowers_the_peak(pool):
    plain, g_plain, _ = _mnist_step(pool, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ck.CheckpointCostWarning)
        ckpt, g_ckpt, saved = _mnist_step(pool, True)
    assert ckpt < plain
    assert saved > 0
    np.testing.assert_array_equal(g_plain, g_ckpt)


def test_a_detached_copy_of_a_value_made_in_the_segment_is_replayed_not_kept():
    # max_pool2d hands its op x and x.detach(): the segment used to keep the second,
    # an activation it exists to drop.
    mg.manual_seed(0)
    x = mg.randn(4, 3, 8, 8, requires_grad=True)
    y = ck.checkpoint(lambda t: F.max_pool2d(mg.tanh(t), 2), x)
    seg = y._node.segment
    assert seg.kept_bytes == 0 and seg.replay_extra_bytes == 0
    assert seg.dropped_bytes == 4 * 3 * 8 * 8 * 4


def test_a_segment_that_keeps_more_than_it_drops_is_reported_with_a_warning_naming_it():
    mg.manual_seed(0)
    x = mg.randn(4, 6, requires_grad=True)
    h = x * 2.0  # an intermediate: kept, and counted, by the segment below

    def only_tanh(t):
        return mg.tanh(t)

    ck.reset_statistics()
    with pytest.warns(ck.CheckpointCostWarning, match=r"only_tanh costs memory: it keeps 96 bytes.*drops only 0"):
        ck.checkpoint(only_tanh, h).sum().backward()
    stats = ck.statistics()
    assert stats.costly_segments == ["test_a_segment_that_keeps_more_than_it_drops_is_reported_with_a_warning_"
                                     "naming_it.<locals>.only_tanh"]
    assert stats.memory_saved_bytes == -96
    assert stats.replay_extra_bytes == 96  # tanh saves its output, not the kept input
    assert stats.as_dict()["costly_segments"] == stats.costly_segments
