"""Where PyTorch's ``torch.nn.modules.<submodule>`` puts each layer: one table, read by the
submodules of this package (``activation.py``, ``loss.py``, ...), each of which holds the names
of its row.  The classes are :mod:`minigrad_ckpt.nn`'s; the private bases listed are the ones code
written for PyTorch tests with ``isinstance`` or subclasses (``batchnorm._BatchNorm``, ``batchnorm._NormBase``,
``conv._ConvNd``, ``dropout._DropoutNd``, ``instancenorm._InstanceNorm``, ``loss._Loss``,
``loss._WeightedLoss``, ``pooling._MaxPoolNd`` and the other pooling bases).
``tests/test_nn_modules_paths.py`` checks the table against PyTorch's layout."""

from __future__ import annotations

from typing import Any

from .. import (
    activation,
    adaptive,
    attention,
    blocks,
    containers,
    conv,
    distance,
    dropout,
    embedding,
    flatten,
    lazy_layers,
    linear,
    linear_cross_entropy,
    loss,
    normalization,
    padding,
    pooling,
    recurrent,
    sync_batchnorm,
    transformer,
    upsampling,
)


def _named(module: Any, *names: str) -> dict[str, type]:
    return {name: getattr(module, name) for name in names}


def _every(module: Any) -> dict[str, type]:
    return _named(module, *module.__all__)


PLACES: dict[str, dict[str, type]] = {
    "adaptive": _every(adaptive),
    "activation": {**_every(activation), **_named(attention, "MultiheadAttention")},
    "batchnorm": {**_named(normalization, "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "_BatchNorm", "_NormBase"),
                  **_named(lazy_layers, "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "_LazyNormBase"),
                  **_named(sync_batchnorm, "SyncBatchNorm")},
    "channelshuffle": _named(distance, "ChannelShuffle"),
    "container": _every(containers),
    "conv": {**_every(conv), **_named(blocks, "Conv3d", "ConvTranspose1d"),
             **_named(conv, "_ConvNd", "_ConvTransposeNd"),
             **_named(lazy_layers, "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                      "LazyConvTranspose2d", "LazyConvTranspose3d", "_LazyConvXdMixin")},
    "distance": _named(distance, "PairwiseDistance", "CosineSimilarity"),
    "dropout": {**_every(dropout), "_DropoutNd": dropout._Dropout},
    "flatten": _every(flatten),
    "fold": _named(blocks, "Fold", "Unfold"),
    "instancenorm": {**_named(blocks, "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "_InstanceNorm"),
                     **_named(lazy_layers, "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d")},
    "linear": {**_every(linear), **_named(linear, "NonDynamicallyQuantizableLinear"),
               **_named(lazy_layers, "LazyLinear")},
    "loss": {**_every(loss), **_named(loss, "_Loss", "_WeightedLoss"),
             **_named(linear_cross_entropy, "LinearCrossEntropyLoss")},
    "normalization": {**_named(normalization, "LayerNorm", "GroupNorm", "RMSNorm"),
                      **_named(blocks, "LocalResponseNorm")},
    "padding": _every(padding),
    "pixelshuffle": _named(distance, "PixelShuffle", "PixelUnshuffle"),
    "pooling": {**_every(pooling), **_named(blocks, "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AdaptiveMaxPool1d",
                                            "AdaptiveAvgPool1d", "AdaptiveAvgPool3d"),
                "_MaxPoolNd": pooling._MaxPool, "_AvgPoolNd": pooling._AvgPool, "_LPPoolNd": pooling._LPPool,
                "_AdaptiveMaxPoolNd": pooling._AdaptiveMaxPool, "_AdaptiveAvgPoolNd": pooling._AdaptiveAvgPool,
                "_MaxUnpoolNd": blocks._MaxUnpool},
    "rnn": _every(recurrent),
    "sparse": _every(embedding),
    "transformer": _every(transformer),
    "upsampling": _every(upsampling),
}


def place(namespace: dict[str, Any], submodule: str) -> list[str]:
    """Put ``submodule``'s row into ``namespace`` (a submodule's globals); its public names, for ``__all__``."""
    namespace.update(PLACES[submodule])
    return sorted(name for name in PLACES[submodule] if not name.startswith("_"))
