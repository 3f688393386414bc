"""Utilities above the engine: ``utils.data`` (datasets, samplers, the DataLoader)."""

from . import data

__all__ = ["data"]
