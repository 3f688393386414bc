"""Layers and models: ``Module``, ``Parameter``, layers, recurrent layers, transformers, losses, containers.

``minigrad_ckpt.nn.functional`` holds the functions; ``nn.init`` the
initialisers; ``nn.utils`` gradient clipping and parameter vectors.
"""

from . import functional, init, parallel, utils
from .attention import MultiheadAttention, TransformerBlock
from .containers import ModuleDict, ModuleList, Sequential
from .layers import (
    ELU,
    GELU,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv1d,
    Conv2d,
    ConvTranspose2d,
    Dropout,
    Dropout2d,
    Embedding,
    Flatten,
    GroupNorm,
    Hardtanh,
    Identity,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSigmoid,
    LogSoftmax,
    MaxPool1d,
    MaxPool2d,
    Mish,
    PReLU,
    ReLU,
    RMSNorm,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
    Unflatten,
)
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module, Parameter
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell
from .transformer import TransformerEncoder, TransformerEncoderLayer

__all__ = [
    "functional", "init", "parallel", "utils", "Module", "Parameter", "Sequential", "ModuleList", "ModuleDict",
    "Identity", "Linear", "Flatten", "Unflatten", "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d",
    "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "LayerNorm", "GroupNorm",
    "RMSNorm", "BatchNorm1d", "BatchNorm2d", "Dropout", "Dropout2d", "Embedding", "ReLU", "LeakyReLU", "PReLU",
    "GELU", "SiLU", "Mish", "ELU", "Softplus", "Hardtanh", "Tanh", "Sigmoid", "LogSigmoid", "Softmax",
    "LogSoftmax", "RNNBase", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
    "TransformerBlock", "TransformerEncoderLayer", "TransformerEncoder", "CrossEntropyLoss", "NLLLoss",
    "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
    "CosineEmbeddingLoss",
]
