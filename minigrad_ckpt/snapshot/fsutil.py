"""File utilities shared by ``Snapshot`` and ``SnapshotManager``: atomic writes and byte counts."""

from __future__ import annotations

import os
import re
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["atomic_write", "human_bytes", "stale_temp_files"]

#: an atomic_write temp file: ``.<name>.<host>_<pid namespace>-<pid>.<mkstemp's random part>.tmp``
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


#: the names of the temp files this process is writing now (atomic_write's, until renamed or removed): a
#: file of this process's pid not among them was left by an earlier process of the same pid -- a container
#: restarted after a kill, whose trainer is pid 1 again -- not by a live writer
_writing: set[str] = set()
_writing_lock = threading.Lock()  # (creating a temp file and naming it here are one step for the scan)


def _writing_in_child() -> None:
    """A forked child writes none of its parent's files, and a lock a parent's thread held at the fork
    would stay held there: both start afresh."""
    global _writing_lock
    _writing.clear()
    _writing_lock = threading.Lock()


os.register_at_fork(after_in_child=_writing_in_child)


def _host() -> str:
    """This host's name (only ``[A-Za-z0-9_]``) and the pid namespace this process's pid is a number in:
    containers that share a host name (host networking) and a directory each count pids of their own,
    so a pid is asked about only where it was given."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:  # (no /proc: one namespace)
        namespace = 0
    return f"{re.sub(r'[^A-Za-z0-9_]', '_', socket.gethostname()) or 'host'}_{namespace}"


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
    # the writer's host and pid in the name: a process killed before the rename leaves this file, and
    # stale_temp_files can then tell it from a live writer's
    prefix = f".{path.name}.{_host()}-{os.getpid()}."
    if len(os.fsencode(prefix)) + 12 > 255:  # (a file name's limit: a long name's temp file goes unnamed, as before)
        prefix = f".{path.name}."
    with _writing_lock:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=directory)
        _writing.add(os.path.basename(tmp))
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
    finally:
        with _writing_lock:
            _writing.discard(os.path.basename(tmp))
    if fsync:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return size


def stale_temp_files(directory: Path, owned: Callable[[str], bool]) -> list[Path]:
    """The temp files :func:`atomic_write` left in ``directory`` for a file whose name ``owned``
    accepts, whose writer -- a process of this host and pid namespace -- is gone: killed between
    creating the temp file and renaming it.  A live writer's (this process's own writes in progress
    included), another host's or container's (a shared file system: its processes cannot be asked) and
    any file of another naming are not listed."""
    host, found = _host(), []
    for entry in os.scandir(directory):
        m = _TEMP.match(entry.name)
        if (m is not None and m["host"] == host and owned(m["name"]) and _writer_gone(entry.name, int(m["pid"]))
                and entry.is_file(follow_symlinks=False)):
            found.append(Path(entry.path))
    return found


def _writer_gone(name: str, pid: int) -> bool:
    """Whether the process ``pid`` that named temp file ``name`` no longer writes it."""
    if pid == os.getpid():  # this process: gone unless it is writing the file now (an earlier holder of the pid)
        with _writing_lock:
            return name not in _writing
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, only whether the process exists
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process (or no pid at all: kept, not guessed)
        return True
    return True


def human_bytes(n: int) -> str:
    """``512 bytes``, ``1.50 KB``, ``3.20 MB``, ``1.00 GB`` (powers of 1024)."""
    if n < 1024:
        return f"{n} bytes"
    for unit, div in (("KB", 1024), ("MB", 1024**2), ("GB", 1024**3)):
        if n < div * 1024 or unit == "GB":
            return f"{n / div:.2f} {unit}"
    return f"{n} bytes"
