"""``torch.distributed.algorithms.ddp_comm_hooks``' names: the default hooks."""

from __future__ import annotations

from . import default_hooks

__all__ = ["default_hooks"]
