"""``mg.nn.utils.fusion``: PyTorch's inference-time fusion of a convolution or a linear layer with the
batch norm after it -- the norm folded into the layer's weight and bias, one layer instead of two
(``fuse_conv_bn_eval``, ``fuse_linear_bn_eval``, and the weights alone, ``fuse_*_bn_weights``).

Both layers must be in eval mode (the running statistics are what is folded); the fused weight and bias
are new Parameters, the bias requiring grad only if the layer had one that did, as PyTorch's.
"""

from __future__ import annotations

import copy
from typing import Any

from ...creation import ones_like, zeros_like
from ...functional.elementwise_compositions import rsqrt
from ...grad_mode import no_grad
from ..module import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of ``conv`` computing ``bn(conv(x))``; ``transpose`` for a transposed convolution (its
    output channels are the weight's second dim)."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Any, conv_b: Any, bn_rm: Any, bn_rv: Any, bn_eps: float, bn_w: Any, bn_b: Any,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The weight and bias of the fused convolution: each output channel scaled by
    ``bn_w / sqrt(bn_rv + bn_eps)``, the bias shifted by the running mean."""
    bias_dtype = conv_w.dtype if conv_b is None else conv_b.dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    shape = [1, -1] if transpose else [-1, 1]
    with no_grad():
        scale = rsqrt(bn_rv + bn_eps)
        w = (conv_w * (bn_w * scale).reshape(shape + [1] * (conv_w.ndim - 2))).to(dtype=conv_w.dtype)
        b = ((conv_b - bn_rm) * scale * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of ``linear`` computing ``bn(linear(x))`` (``bn`` over its output features, or one feature)."""
    _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Any, linear_b: Any, bn_rm: Any, bn_rv: Any, bn_eps: float, bn_w: Any,
                           bn_b: Any) -> tuple[Parameter, Parameter]:
    """The weight and bias of the fused linear layer (each output row scaled as in
    :func:`fuse_conv_bn_weights`)."""
    bias_dtype = linear_w.dtype if linear_b is None else linear_b.dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    with no_grad():
        scale = bn_w * rsqrt(bn_rv + bn_eps)
        w = linear_w * scale.unsqueeze(-1).to(dtype=linear_w.dtype)
        b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(w, linear_w.requires_grad), Parameter(b, linear_b.requires_grad)


def _check_eval(layer: Any, bn: Any) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
