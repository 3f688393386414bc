"""The everyday layers, gathered: ``from minigrad_ckpt.nn.layers import Linear`` keeps working.

Each kind lives in a module of its own: ``linear`` (Identity, Linear),
``flatten``, ``conv``, ``pooling``, ``normalization``, ``dropout``,
``embedding`` and ``activation``; ``minigrad_ckpt.nn`` exports them all.
"""

# ruff: noqa: F405  (``__all__`` names what the star imports bring, in the order docs/api.md lists it)
from __future__ import annotations

from .activation import *  # noqa: F403
from .conv import *  # noqa: F403
from .dropout import *  # noqa: F403
from .embedding import *  # noqa: F403
from .flatten import *  # noqa: F403
from .linear import *  # noqa: F403
from .module import _empty  # noqa: F401  (the name this module had)
from .normalization import *  # noqa: F403
from .pooling import *  # noqa: F403

__all__ = [
    "Identity", "Linear", "Flatten", "Conv2d", "MaxPool2d", "AvgPool2d", "LayerNorm", "BatchNorm1d",
    "BatchNorm2d", "Dropout", "Embedding", "ReLU", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax",
    "LogSoftmax", "Dropout2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d", "AvgPool1d", "Conv1d",
    "ConvTranspose2d", "GroupNorm", "RMSNorm", "Unflatten", "Softplus", "Hardtanh", "ELU", "Mish", "LogSigmoid",
    "PReLU",
]
