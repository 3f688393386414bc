"""Rank files no snapshot will ever name: claims on collective saves in flight, and orphans.

A collective save writes every rank's file (:mod:`.ranks`) before rank 0
commits the snapshot that names them.  A job that dies in between leaves
*orphans*: rank files that no snapshot names and no prune will find.  The
manager deletes them at its next successful save, holding the directory's
lock -- but a rank file no snapshot names yet may also belong to a save still
in flight: in this job (an asynchronous save waiting for the writer) or in
another process saving into the same directory.  So rank 0 *claims* each
collective save before anyone knows its token: it creates
``.saving-<token>.lock`` and holds an exclusive ``flock`` on it until the save
is committed or has failed, then deletes it.  A process that dies drops its
locks.  A rank file is an orphan only if

* no manifest entry and no snapshot file in the directory (read from its
  header) names it -- the files of committed snapshots are never touched, even
  after the manifest was lost and rebuilt; and
* its save's claim file is absent or not locked by anyone.
"""

from __future__ import annotations

import fcntl
import os
import secrets
from pathlib import Path

from .ranks import is_rank_file

__all__ = ["claim", "release", "orphans", "token_of"]

#: The descriptors holding a ``flock`` now: the claims here and the manager's directory lock.
#: A flock belongs to the open file, which a forked child (a DataLoader worker started while a
#: background save holds the lock) shares: the lock would stay held until the child exits.  The
#: child closes its copies at once, so only this process holds it.
LOCK_FDS: set[int] = set()
# claim file path -> the descriptor holding its lock
_held: dict[str, int] = {}


def _close_in_child() -> None:
    for fd in LOCK_FDS:
        try:
            os.close(fd)
        except OSError:
            pass
    LOCK_FDS.clear()
    _held.clear()


os.register_at_fork(after_in_child=_close_in_child)


def _claim_path(directory: Path, token: str) -> Path:
    return directory / f".saving-{token}.lock"


def token_of(rank_file: str) -> str:
    """The save token in a rank file's name, ``ranks-<iteration>-<token>.<rank>-of-<N>.mgrank``."""
    return rank_file.split("-")[2].split(".")[0]


def claim(directory: Path) -> str:
    """A fresh token for a collective save, claimed (locked) by this process until :func:`release`."""
    token = secrets.token_hex(8)
    path = _claim_path(directory, token)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    _held[str(path)] = fd
    LOCK_FDS.add(fd)
    return token


def release(directory: Path, token: str) -> None:
    """The save of ``token`` is committed or failed: delete its claim file and drop the lock (once)."""
    path = _claim_path(directory, token)
    fd = _held.pop(str(path), None)
    if fd is None:
        return
    LOCK_FDS.discard(fd)
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    os.close(fd)


def _claimed(directory: Path, token: str) -> bool:
    """Whether a live process holds the claim of ``token``; a stale claim file is deleted."""
    path = _claim_path(directory, token)
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell (a FIFO, no permission): keep the files
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        path.unlink()  # its process is gone (or it is another process's claim we now hold: none)
        return False
    finally:
        os.close(fd)


def orphans(directory: Path, named: set[str]) -> list[str]:
    """The rank files in ``directory`` that ``named`` does not hold and no live save claims."""
    try:
        names = sorted(e.name for e in os.scandir(directory))
    except OSError:
        return []
    unnamed = [n for n in names if is_rank_file(n) and n not in named]
    free = {t for t in {token_of(n) for n in unnamed} if not _claimed(directory, t)}
    return [n for n in unnamed if token_of(n) in free]
