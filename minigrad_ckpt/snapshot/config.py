"""What a snapshot contains and how it is written and read: ``SnapshotConfig`` and ``SnapshotMetadata``.

Plain data, no I/O: the other snapshot modules (capture, storage, restore,
manager) all read their switches from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .format import FORMAT_VERSION, LoadLimits

__all__ = ["SnapshotConfig", "SnapshotMetadata"]


@dataclass
class SnapshotConfig:
    """What a snapshot contains and how it is written and read.

    ``enable_compression``  zlib per tensor, kept only where it saves >10%
    ``include_tape``        store the recorded forward tape (``Executor.record``)
    ``verify_checksum``     check every CRC when loading (on by default)
    ``incremental``         store only tensors that changed since the ``base`` snapshot
    ``limits``              the :class:`LoadLimits` a file must respect (applied when saving too)
    ``fsync``               make writes durable (off only for throwaway files)
    """

    enable_compression: bool = False
    include_tape: bool = False
    verify_checksum: bool = True
    incremental: bool = False
    limits: LoadLimits = field(default_factory=LoadLimits)
    fsync: bool = True

    @classmethod
    def for_training(cls) -> SnapshotConfig:
        """Everything needed to continue training, tape included; no compression."""
        return cls(enable_compression=False, include_tape=True, verify_checksum=True, incremental=False)

    @classmethod
    def for_inference(cls) -> SnapshotConfig:
        """Weights for inference: compressed where it pays, no tape."""
        return cls(enable_compression=True, include_tape=False, verify_checksum=True, incremental=False)

    @classmethod
    def incremental_config(cls) -> SnapshotConfig:
        return cls(enable_compression=False, include_tape=True, verify_checksum=True, incremental=True)


# The seed has both a field ``incremental`` (a bool) and a constructor
# ``incremental()``.  Python allows one attribute per name, so the name is a
# descriptor: on the class it is the constructor, on an instance the flag.
class _IncrementalDescriptor:
    """``SnapshotConfig.incremental()`` builds a config; ``config.incremental`` is the flag."""

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            return owner.incremental_config
        return obj.__dict__.get("incremental", False)

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["incremental"] = bool(value)


SnapshotConfig.incremental = _IncrementalDescriptor()  # type: ignore[assignment]


@dataclass
class SnapshotMetadata:
    """``iteration``, ``timestamp`` (Unix seconds), ``version`` (format), ``tensor_count``,
    ``total_bytes`` (uncompressed tensor bytes), ``custom`` (str -> str) and
    ``checksum`` (the header CRC once saved or loaded)."""

    iteration: int
    timestamp: float
    version: str = str(FORMAT_VERSION)
    tensor_count: int = 0
    total_bytes: int = 0
    custom: dict[str, str] = field(default_factory=dict)
    checksum: str | None = None
