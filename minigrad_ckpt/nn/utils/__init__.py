"""Training utilities: gradient clipping, parameters as one vector and back; ``rnn``: padding
variable-length sequences into one batch; the reparameterizations ``weight_norm`` and
``spectral_norm`` (PyTorch's hook-based forms); ``stateless``, the deprecated home of
``functional_call``; ``fusion``, a batch norm folded into the convolution or linear layer before it
for inference; ``prune``: masks on parameters."""

from __future__ import annotations

from typing import Any

from . import clip_grad, convert_parameters, fusion, parametrizations, parametrize, prune, rnn, stateless
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad", "convert_parameters", "rnn", "parametrize", "parametrizations", "prune", "stateless",
           "fusion", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "clip_grad_norm_", "clip_grad_norm", "skip_init", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """PyTorch's ``skip_init(module_cls, *args, **kwargs)``: the module without running its
    initialisation -- which PyTorch does by building it on the ``meta`` device and allocating
    empty memory.  Here it is built as usual and its values are then as unspecified as PyTorch's
    (initialised, in fact); the class must take ``device=``, as PyTorch requires."""
    import inspect

    from ..module import Module

    if not isinstance(module_cls, type):  # PyTorch's issubclass() raises this
        raise TypeError(f"skip_init: module_cls must be a class, got {type(module_cls).__name__}")
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
