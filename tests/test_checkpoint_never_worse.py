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
VOL = (2, 3, 4, 4, 4)
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
    "TransformerDecoderLayer": (lambda: _Memory(nn.TransformerDecoderLayer(6, 2, 12, dropout=0.1)), (3, 2, 6)),
    "TransformerDecoder": (lambda: _Memory(nn.TransformerDecoder(nn.TransformerDecoderLayer(6, 2, 12), 2)), (3, 2, 6)),
    "Transformer": (lambda: _Memory(nn.Transformer(6, 2, 1, 1, 12)), (3, 2, 6)),
    "Sequential": (lambda: nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 3)), (4, 6)),
    "DataParallel": (lambda: nn.DataParallel(nn.Sequential(nn.Linear(6, 6), nn.Tanh())), (4, 6)),
    "AdaptiveAvgPool1d": (lambda: nn.AdaptiveAvgPool1d(3), (2, 3, 10)),
    "AdaptiveMaxPool1d": (lambda: nn.AdaptiveMaxPool1d(3), (2, 3, 10)),
    "AdaptiveAvgPool3d": (lambda: nn.AdaptiveAvgPool3d(2), VOL),
    "AlphaDropout": (lambda: nn.AlphaDropout(0.3), (4, 6)),
    "Dropout1d": (lambda: nn.Dropout1d(0.3), (2, 3, 10)),
    "Dropout3d": (lambda: nn.Dropout3d(0.3), VOL),
    "CELU": (lambda: nn.CELU(), (4, 6)),
    "SELU": (lambda: nn.SELU(), (4, 6)),
    "GLU": (lambda: nn.GLU(-1), (4, 6)),
    "Hardshrink": (lambda: nn.Hardshrink(), (4, 6)),
    "Hardsigmoid": (lambda: nn.Hardsigmoid(), (4, 6)),
    "Hardswish": (lambda: nn.Hardswish(), (4, 6)),
    "RReLU": (lambda: nn.RReLU(), (4, 6)),
    "Softmin": (lambda: nn.Softmin(-1), (4, 6)),
    "Softshrink": (lambda: nn.Softshrink(), (4, 6)),
    "Softsign": (lambda: nn.Softsign(), (4, 6)),
    "Tanhshrink": (lambda: nn.Tanhshrink(), (4, 6)),
    "Threshold": (lambda: nn.Threshold(0.1, 0.0), (4, 6)),
    "Conv3d": (lambda: nn.Conv3d(3, 4, 3, padding=1), VOL),
    "ConvTranspose1d": (lambda: nn.ConvTranspose1d(3, 4, 3, stride=2), (2, 3, 10)),
    "CosineSimilarity": (lambda: _WithTarget(nn.CosineSimilarity(dim=1)), (4, 6)),
    "PairwiseDistance": (lambda: _WithTarget(nn.PairwiseDistance()), (4, 6)),
    "EmbeddingBag": None,  # its input is integer ids, as Embedding's
    "Fold": (lambda: nn.Fold((4, 4), 2), (2, 12, 9)),
    "Unfold": (lambda: nn.Unfold(2), IMG),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3), (2, 3, 10)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(3), IMG),
    "LocalResponseNorm": (lambda: nn.LocalResponseNorm(2), IMG),
    "MaxUnpool1d": (lambda: _PoolUnpool(nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)), (2, 3, 10)),
    "MaxUnpool2d": (lambda: _PoolUnpool(nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)), IMG),
    "PixelShuffle": (lambda: nn.PixelShuffle(2), (2, 4, 3, 3)),
    "PixelUnshuffle": (lambda: nn.PixelUnshuffle(2), IMG),
    "Upsample": (lambda: nn.Upsample(scale_factor=2, mode="bilinear"), IMG),
    "UpsamplingBilinear2d": (lambda: nn.UpsamplingBilinear2d(scale_factor=2), IMG),
    "UpsamplingNearest2d": (lambda: nn.UpsamplingNearest2d(scale_factor=2), IMG),
    "MaxPool3d": (lambda: nn.MaxPool3d(2), VOL),
    "AvgPool3d": (lambda: nn.AvgPool3d(2, ceil_mode=True), (2, 3, 3, 4, 4)),
    "ConvTranspose3d": (lambda: nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1), VOL),
    "AdaptiveMaxPool3d": (lambda: nn.AdaptiveMaxPool3d(3), VOL),
    "MaxUnpool3d": (lambda: _PoolUnpool(nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)), VOL),
    "BatchNorm3d": (lambda: nn.BatchNorm3d(3), VOL),
    "SyncBatchNorm": (lambda: nn.SyncBatchNorm(3), IMG),  # (one process: plain batch norm, as PyTorch's)
    "InstanceNorm3d": (lambda: nn.InstanceNorm3d(3), VOL),
    # a lazy layer's first call (the plain step's) makes it the eager layer: the checkpointed step runs that
    "LazyLinear": (lambda: nn.LazyLinear(5), (4, 6)),
    "LazyConv1d": (lambda: nn.LazyConv1d(4, 3, padding=1), (2, 3, 10)),
    "LazyConv2d": (lambda: nn.LazyConv2d(4, 3, padding=1), IMG),
    "LazyConv3d": (lambda: nn.LazyConv3d(4, 3, padding=1), VOL),
    "LazyConvTranspose1d": (lambda: nn.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 10)),
    "LazyConvTranspose2d": (lambda: nn.LazyConvTranspose2d(4, 3, stride=2), IMG),
    "LazyConvTranspose3d": (lambda: nn.LazyConvTranspose3d(4, 3, stride=2, padding=1), VOL),
    "LazyBatchNorm1d": (lambda: nn.LazyBatchNorm1d(), (4, 6)),
    "LazyBatchNorm2d": (lambda: nn.LazyBatchNorm2d(), IMG),
    "LazyBatchNorm3d": (lambda: nn.LazyBatchNorm3d(), VOL),
    "LazyInstanceNorm1d": (lambda: nn.LazyInstanceNorm1d(), (2, 3, 10)),
    "LazyInstanceNorm2d": (lambda: nn.LazyInstanceNorm2d(), IMG),
    "LazyInstanceNorm3d": (lambda: nn.LazyInstanceNorm3d(), VOL),
    "Bilinear": (lambda: _WithTarget(nn.Bilinear(6, 6, 5)), (4, 6)),
    "AdaptiveLogSoftmaxWithLoss": (lambda: _WithTarget(nn.AdaptiveLogSoftmaxWithLoss(6, 10, [3, 6], div_value=2.0),
                                                       mg.tensor([1, 4, 8, 9])), (4, 6)),
    # the chunked head (two rows of logits at a time) and its reference path
    "LinearCrossEntropyLoss": (lambda: _WithTarget(nn.LinearCrossEntropyLoss(
        6, 5, bias=True, options=nn.LinearCrossEntropyOptions(batch_chunk_size=2)), mg.tensor([1, 4, 0, 2])), (4, 6)),
    "ChannelShuffle": (lambda: nn.ChannelShuffle(2), (2, 4, 3, 3)),
    "FeatureAlphaDropout": (lambda: nn.FeatureAlphaDropout(0.3), IMG),
    "LPPool1d": (lambda: nn.LPPool1d(2, 2), (2, 3, 10)),
    "LPPool2d": (lambda: nn.LPPool2d(2, 2), IMG),
    "LPPool3d": (lambda: nn.LPPool3d(2, 2), VOL),
    "FractionalMaxPool2d": (lambda: nn.FractionalMaxPool2d(2, output_size=4, _random_samples=mg.full((2, 3, 2), 0.4)),
                            IMG),
    "FractionalMaxPool3d": (lambda: nn.FractionalMaxPool3d(2, output_size=2, _random_samples=mg.full((2, 3, 3), 0.4)),
                            VOL),
    "ReLU6": (lambda: nn.ReLU6(), (4, 6)),
    "Softmax2d": (lambda: nn.Softmax2d(), IMG),
    **{f"{kind}Pad{d}d": ((lambda kind=kind, d=d: getattr(nn, f"{kind}Pad{d}d")(*(
        (1, 0.5) if kind == "Constant" else (1,)))), {1: (2, 3, 10), 2: IMG, 3: VOL}[d])
       for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular") for d in (1, 2, 3)},
}
# not layers one can call on a tensor
CONTAINERS = {"Module", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "RNNBase", "RNNCellBase"}


class _WithTarget(nn.Module):
    """A layer of two inputs, the second a constant."""

    def __init__(self, layer: nn.Module, target=None) -> None:
        super().__init__()
        self.layer, self.target = layer, target

    def forward(self, x):
        return self.layer(x, TARGET if self.target is None else self.target)


class _Memory(nn.Module):
    """A decoder (or a whole Transformer) reading its input as both its target and its memory (source)."""

    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x, x)


class _PoolUnpool(nn.Module):
    def __init__(self, pool: nn.Module, unpool: nn.Module) -> None:
        super().__init__()
        self.pool, self.unpool = pool, unpool

    def forward(self, x):
        return self.unpool(*self.pool(x))


class _SelfAttention(nn.Module):
    def __init__(self, attn: nn.Module) -> None:
        super().__init__()
        self.attn = attn

    def forward(self, x):
        return self.attn(x, x, x, is_causal=True, attn_mask=None)[0]


mg.manual_seed(0)
W_LINEAR, W_CONV2D, W_CONV1D = (mg.randn(*s, requires_grad=True) for s in [(5, 6), (4, 3, 3, 3), (4, 3, 3)])
W_CONV_T, W_PRELU = mg.randn(3, 4, 3, 3, requires_grad=True), mg.randn(3, requires_grad=True)
W_CONV3D, W_CONV_T1 = mg.randn(4, 3, 3, 3, 3, requires_grad=True), mg.randn(3, 4, 3, requires_grad=True)
W_CONV_T3 = mg.randn(3, 2, 2, 3, 2, requires_grad=True)
W_BILINEAR = mg.randn(5, 6, 6, requires_grad=True)
W_MHA_IN, W_MHA_OUT = mg.randn(12, 4, requires_grad=True), mg.randn(4, 4, requires_grad=True)
GRID = mg.tensor(np.random.default_rng(1).uniform(-1, 1, (2, 5, 5, 2)).astype(np.float32))
TARGET = mg.tensor(np.random.default_rng(0).random((4, 6)).astype(np.float32))


FUNCTIONALS = {
    "relu": ((4, 6), lambda x: F.relu(x)),
    "leaky_relu": ((4, 6), lambda x: F.leaky_relu(x, 0.1)),
    # the in-place spellings write into an intermediate (a segment's input is a leaf here)
    "relu_": ((4, 6), lambda x: F.relu_(x * 2)),
    "leaky_relu_": ((4, 6), lambda x: F.leaky_relu_(x * 2, 0.1)),
    "elu_": ((4, 6), lambda x: F.elu_(x * 2)),
    "celu_": ((4, 6), lambda x: F.celu_(x * 2, 0.5)),
    "selu_": ((4, 6), lambda x: F.selu_(x * 2)),
    "hardtanh_": ((4, 6), lambda x: F.hardtanh_(x * 2)),
    "rrelu_": ((4, 6), lambda x: F.rrelu_(x * 2)),
    "threshold_": ((4, 6), lambda x: F.threshold_(x * 2, 0.1, -1.0)),
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
    "multi_head_attention_forward": ((3, 2, 4), lambda x: F.multi_head_attention_forward(
        x, x, x, 4, 2, W_MHA_IN, None, None, None, False, 0.0, W_MHA_OUT, None, need_weights=False)[0]),
    "pad": ((4, 6), lambda x: F.pad(x, (1, 2))),
    "softplus": ((4, 6), lambda x: F.softplus(x)),
    "logsigmoid": ((4, 6), lambda x: F.logsigmoid(x)),
    "mish": ((4, 6), lambda x: F.mish(x)),
    "elu": ((4, 6), lambda x: F.elu(x)),
    "hardtanh": ((4, 6), lambda x: F.hardtanh(x)),
    "prelu": ((2, 3, 4), lambda x: F.prelu(x, W_PRELU)),
    "adaptive_avg_pool1d": ((2, 3, 10), lambda x: F.adaptive_avg_pool1d(x, 3)),
    "adaptive_max_pool1d": ((2, 3, 10), lambda x: F.adaptive_max_pool1d(x, 3)),
    "adaptive_avg_pool3d": (VOL, lambda x: F.adaptive_avg_pool3d(x, 2)),
    "max_pool3d": (VOL, lambda x: F.max_pool3d(x, 2)),
    "avg_pool3d": (VOL, lambda x: F.avg_pool3d(x, 3, 2, 1, count_include_pad=False)),
    "affine_grid": ((2, 2, 3), lambda x: F.affine_grid(x, (2, 1, 4, 4), align_corners=False)),
    "grid_sample": (IMG, lambda x: F.grid_sample(x, GRID, align_corners=False)),
    "alpha_dropout": ((4, 6), lambda x: F.alpha_dropout(x, 0.3, training=True)),
    "dropout1d": ((2, 3, 10), lambda x: F.dropout1d(x, 0.3)),
    "dropout3d": (VOL, lambda x: F.dropout3d(x, 0.3)),
    "celu": ((4, 6), lambda x: F.celu(x)),
    "selu": ((4, 6), lambda x: F.selu(x)),
    "glu": ((4, 6), lambda x: F.glu(x, -1)),
    "hardshrink": ((4, 6), lambda x: F.hardshrink(x)),
    "hardsigmoid": ((4, 6), lambda x: F.hardsigmoid(x)),
    "hardswish": ((4, 6), lambda x: F.hardswish(x)),
    "rrelu": ((4, 6), lambda x: F.rrelu(x, training=True)),
    "softmin": ((4, 6), lambda x: F.softmin(x, -1)),
    "softshrink": ((4, 6), lambda x: F.softshrink(x)),
    "softsign": ((4, 6), lambda x: F.softsign(x)),
    "tanhshrink": ((4, 6), lambda x: F.tanhshrink(x)),
    "threshold": ((4, 6), lambda x: F.threshold(x, 0.1, 0.0)),
    "conv3d": (VOL, lambda x: F.conv3d(x, W_CONV3D, padding=1)),
    "conv_transpose1d": ((2, 3, 10), lambda x: F.conv_transpose1d(x, W_CONV_T1, stride=2)),
    "cosine_similarity": ((4, 6), lambda x: F.cosine_similarity(x, TARGET)),
    "pairwise_distance": ((4, 6), lambda x: F.pairwise_distance(x, TARGET)),
    "pdist": ((4, 6), lambda x: F.pdist(x)),
    "fold": ((2, 12, 9), lambda x: F.fold(x, (4, 4), 2)),
    "unfold": (IMG, lambda x: F.unfold(x, 2)),
    "instance_norm": (IMG, lambda x: F.instance_norm(x)),
    "local_response_norm": (IMG, lambda x: F.local_response_norm(x, 2)),
    "normalize": ((4, 6), lambda x: F.normalize(x, dim=-1)),
    "interpolate": (IMG, lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)),
    "upsample": (IMG, lambda x: F.upsample(x, scale_factor=2)),
    "upsample_bilinear": (IMG, lambda x: F.upsample_bilinear(x, scale_factor=2)),
    "upsample_nearest": (IMG, lambda x: F.upsample_nearest(x, scale_factor=2)),
    "max_unpool1d": ((2, 3, 10), lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2)),
    "max_unpool2d": (IMG, lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2)),
    "pixel_shuffle": ((2, 4, 3, 3), lambda x: F.pixel_shuffle(x, 2)),
    "pixel_unshuffle": (IMG, lambda x: F.pixel_unshuffle(x, 2)),
    "conv_transpose3d": (VOL, lambda x: F.conv_transpose3d(x, W_CONV_T3, stride=(2, 1, 2), padding=1)),
    "adaptive_max_pool3d": (VOL, lambda x: F.adaptive_max_pool3d(x, (3, 2, 3))),
    "max_unpool3d": (VOL, lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2)),
    "bilinear": ((4, 6), lambda x: F.bilinear(x, TARGET, W_BILINEAR)),
    "channel_shuffle": ((2, 4, 3, 3), lambda x: F.channel_shuffle(x, 2)),
    "feature_alpha_dropout": (IMG, lambda x: F.feature_alpha_dropout(x, 0.3, training=True)),
    "lp_pool1d": ((2, 3, 10), lambda x: F.lp_pool1d(x, 2, 2)),
    "lp_pool2d": (IMG, lambda x: F.lp_pool2d(x, 3, 2)),
    "lp_pool3d": (VOL, lambda x: F.lp_pool3d(x, 2, 2)),
    "fractional_max_pool2d": (IMG, lambda x: F.fractional_max_pool2d(x, 2, output_size=4,
                                                                      _random_samples=mg.full((2, 3, 2), 0.7))),
    "fractional_max_pool3d": (VOL, lambda x: F.fractional_max_pool3d(x, 2, output_size=2,
                                                                      _random_samples=mg.full((2, 3, 3), 0.7))),
    "relu6": ((4, 6), lambda x: F.relu6(x)),
    "gumbel_softmax": ((4, 6), lambda x: F.gumbel_softmax(x, tau=0.5)),
    # the pooling functions that always return (values, indices): the values
    "max_pool1d_with_indices": ((2, 3, 10), lambda x: F.max_pool1d_with_indices(x, 2)[0]),
    "max_pool2d_with_indices": (IMG, lambda x: F.max_pool2d_with_indices(x, 2)[0]),
    "max_pool3d_with_indices": (VOL, lambda x: F.max_pool3d_with_indices(x, 2)[0]),
    "adaptive_max_pool1d_with_indices": ((2, 3, 10), lambda x: F.adaptive_max_pool1d_with_indices(x, 3)[0]),
    "adaptive_max_pool2d_with_indices": (IMG, lambda x: F.adaptive_max_pool2d_with_indices(x, 3)[0]),
    "adaptive_max_pool3d_with_indices": (VOL, lambda x: F.adaptive_max_pool3d_with_indices(x, (3, 2, 3))[0]),
    "fractional_max_pool2d_with_indices": (IMG, lambda x: F.fractional_max_pool2d_with_indices(
        x, 2, output_size=4, _random_samples=mg.full((2, 3, 2), 0.7))[0]),
    "fractional_max_pool3d_with_indices": (VOL, lambda x: F.fractional_max_pool3d_with_indices(
        x, 2, output_size=2, _random_samples=mg.full((2, 3, 3), 0.7))[0]),
}
# Losses take a target, which a checkpoint keeps as one of its inputs while a plain run
# may not save it: their peak may exceed by the targets' bytes and no more.
LABELS = mg.tensor([1, 0, 5, 2])
VAR = mg.tensor(np.random.default_rng(2).random((4, 6)).astype(np.float32) + 0.5)
SIGNS = mg.tensor(np.where(np.random.default_rng(3).random((4, 6)) > 0.5, 1.0, -1.0).astype(np.float32))
BINARY = mg.tensor((np.random.default_rng(4).random((4, 6)) > 0.5).astype(np.float32))
MULTI_LABELS = mg.tensor([[1, 3, -1, 0, 0, 0], [0, -1, 0, 0, 0, 0], [5, 4, 2, -1, 0, 0], [2, -1, 0, 0, 0, 0]])
SEQUENCE = mg.tensor([3, 3])
HEAD = mg.tensor(np.random.default_rng(5).standard_normal((7, 6)).astype(np.float32))  # 7 classes of 6 features
LOSSES = {
    "cross_entropy": (lambda x: F.cross_entropy(x, LABELS), LABELS),
    "linear_cross_entropy": (lambda x: F.linear_cross_entropy(
        x, HEAD, LABELS, options=nn.LinearCrossEntropyOptions(batch_chunk_size=3)), LABELS),
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
    "gaussian_nll_loss": (lambda x: F.gaussian_nll_loss(x, TARGET, VAR), (TARGET, VAR)),
    "hinge_embedding_loss": (lambda x: F.hinge_embedding_loss(x, SIGNS), SIGNS),
    "margin_ranking_loss": (lambda x: F.margin_ranking_loss(x, TARGET, SIGNS), (TARGET, SIGNS)),
    "multi_margin_loss": (lambda x: F.multi_margin_loss(x, LABELS), LABELS),
    "multilabel_margin_loss": (lambda x: F.multilabel_margin_loss(x, MULTI_LABELS), MULTI_LABELS),
    "multilabel_soft_margin_loss": (lambda x: F.multilabel_soft_margin_loss(x, BINARY), BINARY),
    "poisson_nll_loss": (lambda x: F.poisson_nll_loss(x, TARGET), TARGET),
    "ctc_loss": (lambda x: F.ctc_loss(F.log_softmax(x, axis=-1), SEQUENCE, (4,), (2,)), SEQUENCE),  # (T, C)
    "soft_margin_loss": (lambda x: F.soft_margin_loss(x, SIGNS), SIGNS),
    "triplet_margin_loss": (lambda x: F.triplet_margin_loss(x, TARGET, VAR), (TARGET, VAR)),
    "triplet_margin_with_distance_loss": (lambda x: F.triplet_margin_with_distance_loss(x, TARGET, VAR),
                                          (TARGET, VAR)),
}
NOT_DIFFERENTIABLE = {"one_hot"}  # integer in, integer out: nothing for a checkpoint to drop
LOSS_LAYERS = {"CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
               "BCEWithLogitsLoss", "KLDivLoss", "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss",
               "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
               "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss"}


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


# Layers whose first op does not save its input (unpooling saves indices, a distance a norm): a
# checkpoint keeps that input to replay from, so checkpointing one alone can raise the peak --
# by at most what the engine reports (CheckpointStatistics.replay_extra_bytes: what replays hold
# above a plain run), or with a CheckpointCostWarning. Never a silent rise; checkpoint a longer
# stretch of the model instead.
SAVES_LESS_THAN_ITS_INPUT = {"MaxUnpool1d", "max_unpool1d", "MaxUnpool2d", "max_unpool2d", "PairwiseDistance",
                             "pairwise_distance", "MaxUnpool3d", "max_unpool3d"}


def _assert_never_worse(fn, shape, behind_tanh, slack=0, costly=False):
    plain, g_plain = _step(fn, shape, False, behind_tanh)
    ck.statistics().reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ck.CheckpointCostWarning)  # a one-layer segment may save nothing
        ckpt, g_ckpt = _step(fn, shape, True, behind_tanh)
    if costly:  # it may cost memory, but never silently
        warned = any(issubclass(w.category, ck.CheckpointCostWarning) for w in caught)
        reported = ck.statistics().replay_extra_bytes
        assert warned or ckpt <= plain + reported, (
            f"checkpointed peak {ckpt} B > {plain} B without checkpointing + {reported} B of replay the "
            f"statistics report, and no CheckpointCostWarning")
    else:
        assert ckpt <= plain + slack, f"checkpointed peak {ckpt} B > {plain} B without checkpointing"
    assert len(g_plain) == len(g_ckpt)
    for a, b in zip(g_plain, g_ckpt):
        np.testing.assert_array_equal(a, b)


def test_every_layer_and_functional_has_a_case():
    layers = {n for n in nn.__all__ if isinstance(getattr(nn, n), type) and issubclass(getattr(nn, n), nn.Module)}
    assert layers - CONTAINERS - LOSS_LAYERS == set(LAYERS)
    assert SAVES_LESS_THAN_ITS_INPUT <= set(LAYERS) | set(FUNCTIONALS) | set(LOSSES)  # no stale name
    assert set(F.__all__) == set(FUNCTIONALS) | set(LOSSES) | NOT_DIFFERENTIABLE | {"embedding", "embedding_bag"}


@pytest.mark.parametrize("behind_tanh", [False, True], ids=["alone", "behind-tanh"])
@pytest.mark.parametrize("name", sorted(n for n in LAYERS if LAYERS[n] is not None))
def test_layer_in_a_checkpoint_never_raises_the_peak(name, behind_tanh):
    make, shape = LAYERS[name]
    mg.manual_seed(0)
    layer = make()
    _assert_never_worse(layer, shape, behind_tanh, costly=name in SAVES_LESS_THAN_ITS_INPUT)


@pytest.mark.parametrize("behind_tanh", [False, True], ids=["alone", "behind-tanh"])
@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_functional_in_a_checkpoint_never_raises_the_peak(name, behind_tanh):
    shape, fn = FUNCTIONALS[name]
    _assert_never_worse(fn, shape, behind_tanh, costly=name in SAVES_LESS_THAN_ITS_INPUT)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_in_a_checkpoint_raises_the_peak_by_at_most_its_target(name):
    fn, targets = LOSSES[name]
    targets = targets if isinstance(targets, tuple) else (targets,)
    _assert_never_worse(fn, (4, 6), True, slack=sum(t.numpy().nbytes for t in targets))


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
    assert stats.memory_saved_bytes == -96  # the segment's own counts (the ledger is off)
    assert stats.replay_extra_bytes == 96  # tanh saves its output, not the kept input
    assert stats.as_dict()["costly_segments"] == stats.costly_segments
    # Tracked, what the ledger holds less: a plain run's tape holds the tanh's output, this one h.
    # The warning weighs the segment alone: the caller holds its result whatever the tape does.
    ck.reset_statistics()
    with pytest.warns(ck.CheckpointCostWarning), mg.memory.track():
        ck.checkpoint(only_tanh, x * 2.0).sum().backward()
    assert ck.statistics().memory_saved_bytes == 0



def test_the_costs_warning_points_at_the_callers_line():
    # checkpoint()'s warning pointed at the engine's checkpoint/__init__.py:147 and a chain's at
    # :239 (a fixed stacklevel, right only for remat): Python's "default" filter then showed one
    # warning for every call site in the program, and none named the user's line
    h = mg.randn(4, 4, requires_grad=True) * 2.0
    model = nn.Sequential(nn.Tanh(), nn.Tanh())
    model.enable_checkpointing(ck.EveryNLayers(1))
    runs = {
        "checkpoint": lambda: ck.checkpoint(mg.tanh, h),
        "remat": lambda: ck.remat(mg.tanh)(h),
        "checkpoint_sequential": lambda: ck.checkpoint_sequential([nn.Tanh(), nn.Tanh()], 2, h),
        "run_plan": lambda: ck.run_plan([nn.Tanh(), nn.Tanh()], [ck.Block(0, 1, True), ck.Block(1, 2, False)], h),
        "a model's forward": lambda: model(h),
    }
    for name, run in runs.items():
        with pytest.warns(ck.CheckpointCostWarning) as caught:
            run()
        assert [w.filename for w in caught] == [__file__], name

def _written(write):
    def fn(t):
        h = t * 1  # (t itself is the segment's input: writing it would be refused, as in PyTorch)
        write(h)
        return h.exp()
    return fn


def _put(h, index, value):
    h[index] = value


IN_PLACE_WRITES = {
    "zero_": lambda h: h.zero_(),
    "zero_ of a slice": lambda h: h[:, 1:4].zero_(),
    "fill_ of a row": lambda h: h[0].fill_(2.0),
    "x[rows] = 0": lambda h: _put(h, slice(0, 2), 0),
    "x[i, j] = 1.5": lambda h: _put(h, (1, 2), 1.5),
    "x[mask] = 0.0": lambda h: _put(h, h > 0, 0.0),
    "x[[0, 3]] = -1": lambda h: _put(h, [0, 3], -1),
    "x[mask] = a one-element tensor": lambda h: _put(h, h < 0, mg.tensor(2.5)),
    "x[1:3] = a one-element tensor": lambda h: _put(h, slice(1, 3), mg.tensor([-1.0])),
}


@pytest.mark.parametrize("behind_tanh", [False, True], ids=["alone", "behind-tanh"])
@pytest.mark.parametrize("name", sorted(IN_PLACE_WRITES))
def test_an_in_place_write_of_a_number_in_a_checkpoint_never_raises_the_peak(name, behind_tanh):
    """Writing a number (``h[:, 1:4].zero_()``, ``h[mask] = 0``) placed an array of the
    region's -- or the whole tensor's -- size, a constant nothing saves in a plain run,
    which the segment kept: 256 to 2048 B more at the peak.  The number is one number
    now, a one-element tensor broadcast (the slack: that element, which the segment keeps)."""
    _assert_never_worse(_written(IN_PLACE_WRITES[name]), (6, 8), behind_tanh, slack=4)
