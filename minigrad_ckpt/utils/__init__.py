"""Utilities above the engine: ``utils.data`` (datasets, samplers, the DataLoader),
``utils.checkpoint`` (PyTorch's spelling of :mod:`minigrad_ckpt.checkpoint`'s ``checkpoint``) and
``utils.benchmark`` (PyTorch's ``Timer``: statements timed, and their ``Measurement``), ``utils.hooks``
(PyTorch's ``RemovableHandle``), ``utils.swap_tensors`` (two tensor objects trade their contents) and
``utils._pytree`` (PyTorch's private but widely imported pytrees: ``tree_flatten``, ``tree_map``, ``TreeSpec``);
``utils.dlpack`` (PyTorch's ``from_dlpack``/``to_dlpack`` path)."""

from ..swap import swap_tensors
from . import _pytree as _pytree  # (private, as PyTorch's: mg.utils._pytree, not in __all__)
from . import benchmark, checkpoint, data, dlpack, hooks

__all__ = ["benchmark", "checkpoint", "data", "dlpack", "hooks", "swap_tensors"]
