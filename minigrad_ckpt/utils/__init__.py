"""Utilities above the engine: ``utils.data`` (datasets, samplers, the DataLoader),
``utils.checkpoint`` (PyTorch's spelling of :mod:`minigrad_ckpt.checkpoint`'s ``checkpoint``) and
``utils.benchmark`` (PyTorch's ``Timer``: statements timed, and their ``Measurement``), ``utils.hooks``
(PyTorch's ``RemovableHandle``) and ``utils.swap_tensors`` (two tensor objects trade their contents)."""

from ..swap import swap_tensors
from . import benchmark, checkpoint, data, hooks

__all__ = ["benchmark", "checkpoint", "data", "hooks", "swap_tensors"]
