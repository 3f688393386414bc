"""PyTorch's top-level spellings of nn functions whose signatures are not ``nn.functional``'s.

``torch.dropout(input, p, train)``, ``torch.batch_norm(input, weight, bias, running_mean,
running_var, training, momentum, eps, cudnn_enabled)``, ``torch.embedding(weight, indices)`` and
the rest are ATen's own functions: the arguments come in another order (the weight first for
``embedding``, the affine parameters before the statistics for the norms), ``train`` is required,
``cudnn_enabled`` is taken and means nothing on this engine, and ``embedding``'s ``padding_idx=-1``
means none (``F.embedding`` turns a negative index into a row before calling it).  Each here is
its ``nn.functional`` twin with PyTorch's top-level arguments, so gradients, devices and errors
are the twin's.  The top-level names whose signatures *are* the twin's (``torch.conv2d``,
``torch.avg_pool1d``, ...) are the twins themselves (``minigrad_ckpt/__init__.py``), except
``torch.hardshrink`` and ``torch.threshold``: ATen's take ``out=``, which ``F``'s do not.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import overflow_words
from ...functional.arguments import number
from ...out_arguments import CAST, FOUND, with_out
from ...tensor import Tensor
from .activation import hardshrink as _hardshrink
from .activation import threshold as _threshold
from .dropout import _feature_dropout, _tensor_and_probability
from .dropout import alpha_dropout as _alpha_dropout
from .dropout import dropout as _dropout
from .dropout import feature_alpha_dropout as _feature_alpha_dropout
from .embedding import embedding as _embedding
from .inputs import written_in_place
from .normalization import batch_norm as _batch_norm
from .normalization import group_norm as _group_norm
from .normalization import instance_norm as _instance_norm
from .normalization import layer_norm as _layer_norm
from .padding import pad as _pad
from .pool3d import max_pool3d as _max_pool3d
from .pooling import adaptive_max_pool1d as _adaptive_max_pool1d
from .pooling import max_pool1d as _max_pool1d
from .pooling import max_pool2d as _max_pool2d

__all__ = ["dropout", "alpha_dropout", "layer_norm", "group_norm", "batch_norm", "instance_norm", "embedding",
           "max_pool1d", "max_pool2d", "adaptive_max_pool1d", "constant_pad_nd", "hardshrink", "threshold",
           "feature_alpha_dropout", "max_pool3d", "max_pool1d_with_indices", "feature_dropout", "dropout_",
           "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_"]

#: ``F.hardshrink`` and ``F.threshold`` taking ``out=`` as ATen's do: ``threshold``'s result cast into
#: ``out``'s dtype where PyTorch casts, ``hardshrink``'s into its own dtype only (torch 2.13's words)
hardshrink = with_out("hardshrink", _hardshrink, FOUND)
threshold = with_out("threshold", _threshold, CAST)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.dropout(input, p, train)``: ``F.dropout(input, p, training=train)``."""
    return _dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.alpha_dropout(input, p, train)``: ``F.alpha_dropout(input, p, training=train)``."""
    return _alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.feature_alpha_dropout(input, p, train)``: ``F.feature_alpha_dropout(input, p, training=train)``."""
    return _feature_alpha_dropout(input, p, train)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.feature_dropout(input, p, train)``: whole channels zeroed, the mask drawn per
    ``(N, C)`` pair and broadcast over the rest (at least 2 dims, as ATen's)."""
    x, p = _tensor_and_probability("feature_dropout", input, p)
    return _feature_dropout(x, p, train, True)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.dropout_``: :func:`dropout` written into ``input``."""
    return _dropout(input, p, train, inplace=True)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.alpha_dropout_``: :func:`alpha_dropout` written into ``input``."""
    return _alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.feature_alpha_dropout_``: :func:`feature_alpha_dropout` written into ``input``."""
    return _feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``torch.feature_dropout_``: :func:`feature_dropout` written into ``input``."""
    return written_in_place("feature_dropout", input, feature_dropout, p, train)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Any = None, bias: Any = None,  # noqa: A002
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """``torch.layer_norm``: ``F.layer_norm`` (``cudnn_enable`` means nothing here)."""
    return _layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Any = None, bias: Any = None,  # noqa: A002
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """``torch.group_norm``: ``F.group_norm`` (``cudnn_enabled`` means nothing here)."""
    return _group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Any, bias: Any, running_mean: Any, running_var: Any,  # noqa: A002
               training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``torch.batch_norm``: ``F.batch_norm`` with the affine parameters before the statistics."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Any, bias: Any, running_mean: Any, running_var: Any,  # noqa: A002
                  use_input_stats: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``torch.instance_norm``: ``F.instance_norm`` with the affine parameters before the statistics."""
    return _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight: Tensor, indices: Any, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding(weight, indices)``: ``F.embedding(indices, weight)``; a negative
    ``padding_idx`` (the default -1) means no padding row, as ATen's."""
    padding_idx = number("embedding", "padding_idx", padding_idx, "SymInt")
    return _embedding(indices, weight, padding_idx=None if padding_idx < 0 else padding_idx,
                      scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    """``torch.max_pool1d``: ``F.max_pool1d`` (an empty ``stride``, the default, is the kernel's)."""
    return _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)  # (an empty stride: the kernel's)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    """``torch.max_pool2d``: ``F.max_pool2d`` (an empty ``stride``, the default, is the kernel's)."""
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)  # (an empty stride: the kernel's)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False) -> Tensor:
    """``torch.max_pool3d``: ``F.max_pool3d`` (an empty ``stride``, the default, is the kernel's)."""
    return _max_pool3d(input, kernel_size, stride if stride != () else None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """``torch.max_pool1d_with_indices``: the values and their indices, always."""
    return _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``torch.adaptive_max_pool1d``: the values and their indices, always (``F``'s ``return_indices=True``)."""
    return _adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input: Tensor, pad: Any, value: Any = 0) -> Tensor:  # noqa: A002
    """``torch.constant_pad_nd``: ``F.pad(input, pad, value=value)``, where ``value`` is PyTorch's
    Scalar -- a complex one fills a complex tensor (``F.pad``'s ``value`` is a float)."""
    value = number("constant_pad_nd", "value", value)
    if isinstance(value, complex):
        if value.imag == 0:
            value = value.real
        elif input.dtype.kind != "c":
            raise RuntimeError(f"{overflow_words(input.dtype)} (constant_pad_nd of a complex value {value} into a "
                               f"real tensor, as PyTorch's)")
        else:
            return _complex_filled(input, pad, value)
    return _pad(input, pad, "constant", value)


def _complex_filled(input: Tensor, pad: Any, value: complex) -> Tensor:
    """``input`` padded with a complex ``value``: the zero padding, and the value written where a
    padded mask marks the new border (the gradient and tangent reach the kept elements only)."""
    border = _pad(mf.zeros(input.shape, dtype=bool), pad, "constant", True)
    return mf.where(border, value, _pad(input, pad, "constant", 0.0))
