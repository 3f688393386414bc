"""Utilities above the engine: ``utils.data`` (datasets, samplers, the DataLoader),
``utils.checkpoint`` (PyTorch's spelling of :mod:`minigrad_ckpt.checkpoint`'s ``checkpoint``) and
``utils.benchmark`` (PyTorch's ``Timer``: statements timed, and their ``Measurement``) and ``utils.hooks``
(PyTorch's ``RemovableHandle``)."""

from . import benchmark, checkpoint, data, hooks

__all__ = ["benchmark", "checkpoint", "data", "hooks"]
