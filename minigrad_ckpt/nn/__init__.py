"""Layers and models: ``Module``, ``Parameter``, layers, losses, containers.

``minigrad_ckpt.nn.functional`` holds the functions; ``nn.init`` the
initialisers; ``nn.utils`` gradient clipping.
"""

from . import functional, init, parallel, utils
from .attention import MultiheadAttention, TransformerBlock
from .containers import ModuleDict, ModuleList, Sequential
from .layers import (
    GELU,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2d,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
)
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module, Parameter

__all__ = [
    "functional", "init", "parallel", "utils", "Module", "Parameter", "Sequential", "ModuleList", "ModuleDict",
    "Identity", "Linear", "Flatten", "Conv2d", "MaxPool2d", "AvgPool2d", "LayerNorm", "BatchNorm1d",
    "BatchNorm2d", "Dropout", "Embedding", "ReLU", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid",
    "Softmax", "LogSoftmax", "MultiheadAttention", "TransformerBlock", "CrossEntropyLoss",
    "NLLLoss", "MSELoss", "BCEWithLogitsLoss",
]
