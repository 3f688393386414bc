"""Layers and models: ``Module``, ``Parameter``, layers, recurrent layers, transformers, losses, containers.

``minigrad_ckpt.nn.functional`` holds the functions; ``nn.init`` the
initialisers; ``nn.utils`` gradient clipping and parameter vectors.
"""

from . import functional, init, layers, modules, parallel, parameter, utils  # noqa: F401  (layers: all the layers in one module)
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .attention import MultiheadAttention, TransformerBlock
from .blocks import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    Conv3d,
    ConvTranspose1d,
    Fold,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LocalResponseNorm,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
    Unfold,
)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d, ConvTranspose3d
from .data_parallel import DataParallel
from .distance import ChannelShuffle, CosineSimilarity, PairwiseDistance, PixelShuffle, PixelUnshuffle
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .embedding import Embedding, EmbeddingBag
from .flatten import Flatten, Unflatten
from .lazy_layers import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
)
from .linear import Bilinear, Identity, Linear
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Buffer, Module, Parameter
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm, RMSNorm
from .padding import *  # noqa: F403  (ZeroPad1d ... CircularPad3d)
from .padding import __all__ as _padding_names
from .pooling import (
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
)
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sync_batchnorm import SyncBatchNorm
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .uninitialized import UninitializedBuffer, UninitializedParameter
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "functional", "init", "parallel", "utils", "Module", "Parameter", "Buffer", "Sequential", "ModuleList",
    "ModuleDict", "DataParallel",
    "Identity", "Linear", "Flatten", "Unflatten", "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d",
    "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "LayerNorm", "GroupNorm",
    "RMSNorm", "BatchNorm1d", "BatchNorm2d", "Dropout", "Dropout2d", "Embedding", "ReLU", "LeakyReLU", "PReLU",
    "GELU", "SiLU", "Mish", "ELU", "Softplus", "Hardtanh", "Tanh", "Sigmoid", "LogSigmoid", "Softmax",
    "LogSoftmax", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "MultiheadAttention", "TransformerBlock", "TransformerEncoderLayer", "TransformerEncoder", "CrossEntropyLoss",
    "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "CTCLoss",
    "CosineEmbeddingLoss", "Softmin", "SELU", "CELU", "GLU", "Hardswish", "Hardsigmoid", "Softsign", "Tanhshrink",
    "Threshold", "Softshrink", "Hardshrink", "RReLU", "Dropout1d", "Dropout3d", "AlphaDropout", "CosineSimilarity",
    "PairwiseDistance", "PixelShuffle", "PixelUnshuffle", "MarginRankingLoss", "HingeEmbeddingLoss",
    "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "MaxUnpool1d", "MaxUnpool2d", "Fold", "Unfold",
    "LocalResponseNorm", "InstanceNorm1d", "InstanceNorm2d", "ConvTranspose1d", "EmbeddingBag",
    "Conv3d", "AdaptiveAvgPool3d", "MaxPool3d", "AvgPool3d", "ConvTranspose3d", "AdaptiveMaxPool3d", "MaxUnpool3d",
    "ReLU6", "Softmax2d", "Bilinear", "LPPool1d", "LPPool2d", "LPPool3d", "FeatureAlphaDropout", "BatchNorm3d",
    "InstanceNorm3d", "ChannelShuffle", "ParameterList", "ParameterDict", "Transformer", "TransformerDecoder",
    "TransformerDecoderLayer", "FractionalMaxPool2d", "FractionalMaxPool3d", "AdaptiveLogSoftmaxWithLoss",
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d", "UninitializedParameter", "UninitializedBuffer", "SyncBatchNorm",
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions",
    *_padding_names,
]
