"""Utilities above the engine: ``utils.data`` (datasets, samplers, the DataLoader) and
``utils.checkpoint`` (PyTorch's spelling of :mod:`minigrad_ckpt.checkpoint`'s ``checkpoint``)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
