"""``torch.distributed.algorithms``' names: the ``Join`` context manager for uneven inputs."""

from __future__ import annotations

from . import join
from .join import Join, Joinable

__all__ = ["Join", "Joinable", "join"]
