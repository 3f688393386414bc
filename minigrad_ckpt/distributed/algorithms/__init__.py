"""``torch.distributed.algorithms``' names: the ``Join`` context manager for uneven inputs, and the
default DDP communication hooks (``ddp_comm_hooks.default_hooks``)."""

from __future__ import annotations

from . import ddp_comm_hooks, join
from .join import Join, Joinable

__all__ = ["Join", "Joinable", "join", "ddp_comm_hooks"]
