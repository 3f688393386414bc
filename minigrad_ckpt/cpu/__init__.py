"""``mg.cpu``: PyTorch's ``torch.cpu`` namespace, for its deprecated ``torch.cpu.amp`` spellings."""

from __future__ import annotations

from . import amp

__all__ = ["amp"]
