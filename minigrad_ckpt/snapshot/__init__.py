"""Executor-state snapshots in a documented msgpack format (``docs/snapshot-format.md``).

``Snapshot`` captures an :class:`~minigrad_ckpt.Executor` (model, optimizer,
RNG, iteration, named tensors, optionally the tape), saves it atomically with
per-tensor checksums, and restores it exactly.  ``SnapshotManager`` keeps a
directory of them, newest by iteration.
"""

from .config import SnapshotConfig, SnapshotMetadata
from .format import FORMAT_NAME, FORMAT_VERSION, LoadLimits, SnapshotError
from .fsutil import atomic_write, human_bytes
from .manager import SnapshotManager
from .snapshot import Snapshot

__all__ = ["Snapshot", "SnapshotConfig", "SnapshotMetadata", "SnapshotManager", "SnapshotError", "LoadLimits",
           "FORMAT_NAME", "FORMAT_VERSION", "atomic_write", "human_bytes"]
