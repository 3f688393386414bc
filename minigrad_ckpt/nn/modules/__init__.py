"""PyTorch's ``torch.nn.modules`` path, for code that reaches a layer or the hooks of every module
through it: ``torch.nn.modules.module.register_module_forward_hook(hook)`` is
``mg.nn.modules.module.register_module_forward_hook(hook)``, ``isinstance(m,
nn.modules.batchnorm._BatchNorm)`` tests for a batch norm, a loss written for PyTorch subclasses
``nn.modules.loss._Loss``, and ``nn.modules.conv.Conv2d`` is ``nn.Conv2d``.  The names live in
:mod:`minigrad_ckpt.nn` (each submodule here holds those of PyTorch's submodule of that name,
where the engine has them); this package only gives them PyTorch's address, and exports every
layer as PyTorch's does (``nn.modules.Linear``).  ``mg.nn.modules.utils`` holds PyTorch's helpers
of that path (``_pair``, ``consume_prefix_in_state_dict_if_present``)."""

from . import (  # noqa: F401  (module and utils: PyTorch's paths, imported for their names)
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
    utils,
)
from .module import Module

_SUBMODULES = (activation, adaptive, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold,
               instancenorm, linear, loss, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer,
               upsampling)
globals().update({name: getattr(sub, name) for sub in _SUBMODULES for name in sub.__all__})
__all__ = ["Module", *sorted({name for sub in _SUBMODULES for name in sub.__all__})]
