"""File utilities shared by ``Snapshot`` and ``SnapshotManager``: atomic writes and byte counts."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["atomic_write", "human_bytes"]


def atomic_write(path: Path, write: Callable[[IO[bytes]], int], fsync: bool = True) -> int:
    """Write a file so readers see the old one or the complete new one, never a mix.

    Temp file in the same directory (same filesystem), written, flushed and
    fsynced, renamed over ``path`` with ``os.replace``, then the directory is
    fsynced so the rename survives a crash.  The file gets the usual
    permissions (``0o666`` minus the umask), not ``mkstemp``'s ``0o600``.
    ``write(f)`` returns the number of bytes it wrote, which is returned.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            size = write(f)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if fsync:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return size


def human_bytes(n: int) -> str:
    """``512 bytes``, ``1.50 KB``, ``3.20 MB``, ``1.00 GB`` (powers of 1024)."""
    if n < 1024:
        return f"{n} bytes"
    for unit, div in (("KB", 1024), ("MB", 1024**2), ("GB", 1024**3)):
        if n < div * 1024 or unit == "GB":
            return f"{n / div:.2f} {unit}"
    return f"{n} bytes"
