"""PyTorch's ``torch.nn.modules.pooling``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..blocks import AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d
from ..pooling import (
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

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AvgPool1d",
           "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d",
           "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"]
