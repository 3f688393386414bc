"""Copy-on-write: an asynchronous snapshot holds the state of its call without copying it at the call.

``save_snapshot(ex, blocking=False)`` takes *references* to the executor's
arrays (parameters, buffers, optimizer moments, user and tape arrays) in a
:class:`PendingArrays` and returns; the training loop goes on at once.  Each
array is then copied exactly once, into a staging buffer, by whichever comes
first:

* the background writer, which copies them all, in order, before it writes
  anything (NumPy's copy releases the GIL: it runs beside the loop's forward
  and backward, which read the parameters but do not write them);
* the loop itself, when it is about to write into memory an array still
  waiting shares (an optimizer step, ``p.data -= g``, ``load_state_dict``, an
  MPI broadcast): every in-place write calls the tensor layer's *write guard*
  (:func:`minigrad_ckpt.tensor.add_write_guard`, added here while any array
  waits) with the tensor, and the guard copies those arrays before the write.

A copy is made under its save's lock, so it holds the values of the call: a
write waits while the writer copies the array it touches, and nothing writes
into an array that still waits.  Memory is matched by its owner (the end of
the ``base`` chain, :meth:`ArrayNamespace.memory_owner`), so a write through a
view -- a complex parameter's real view, ``.data``, a slice -- is caught too.

What the guard cannot see: a write behind the engine's back that does not
call :meth:`Tensor.prepare_write` first (``t._data[...] = v``, a writable
DLPack export consumed by PyTorch or on a GPU).  The engine's own writers all
call it.  Memory that a caller's array shows (``from_numpy``) is never left waiting:
the capture copies it at the call (``tensor.memory_shown_outside``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from ..backend import device_of
from ..tensor import Tensor, add_write_guard, remove_write_guard

__all__ = ["PendingArrays"]

# id(memory owner) -> the (pending save, array name) pairs waiting on that memory.  An entry is
# removed as soon as its array is copied; the owner stays alive until then (the waiting array
# refers to it), so an id cannot be reused while it is here.
_waiting: dict[int, set[tuple[PendingArrays, str]]] = {}
_registry_lock = threading.Lock()


_guarding = [False]  # is _before_write among the tensor layer's write guards?


def _update_guard() -> None:
    """Add the guard while some array waits, remove it when none does (holding the registry lock)."""
    if _waiting and not _guarding[0]:
        add_write_guard(_before_write)
        _guarding[0] = True
    elif not _waiting and _guarding[0]:
        remove_write_guard(_before_write)
        _guarding[0] = False


def _forget_in_child() -> None:
    """A forked child (a DataLoader worker) has no writer thread to finish these saves: its
    writes need no copies."""
    global _registry_lock
    _registry_lock = threading.Lock()  # one of the parent's other threads may have held it
    _waiting.clear()
    _update_guard()


os.register_at_fork(after_in_child=_forget_in_child)


def _owner_id(arr: Any) -> int:
    return id(device_of(arr).xp.memory_owner(arr))


def _before_write(t: Tensor) -> None:
    """The write guard: copy every waiting array that shares memory with ``t``'s."""
    key = id(t._device.xp.memory_owner(t._data))
    with _registry_lock:
        todo = list(_waiting.get(key, ()))
    for pending, name in todo:
        pending.copy(name)


class PendingArrays:
    """The arrays of one asynchronous save: waiting (a reference to live memory) until copied.

    ``stage(name, array)`` makes the copy (reusing a staging buffer where it can).
    """

    def __init__(self, arrays: dict[str, Any], stage: Callable[[str, Any], Any]) -> None:
        self._live = dict(arrays)
        self._stage = stage
        self._lock = threading.Lock()
        self.copies: dict[str, Any] = {}
        self._owners = {name: _owner_id(arr) for name, arr in self._live.items()}
        with _registry_lock:
            for name, key in self._owners.items():
                _waiting.setdefault(key, set()).add((self, name))
            _update_guard()

    def copy(self, name: str) -> None:
        """Copy the array ``name`` if it still waits (a no-op once copied or released)."""
        with self._lock:
            arr = self._live.get(name)
            if arr is not None:
                self.copies[name] = self._stage(name, arr)
                del self._live[name]
        if arr is not None:
            self._forget(name)

    def copy_all(self) -> dict[str, Any]:
        """Copy every array still waiting (the writer does, first); returns name -> copy, in
        the order the arrays were given."""
        try:
            for name in list(self._owners):
                self.copy(name)
        finally:
            self.release()
        return {name: self.copies[name] for name in self._owners}

    def release(self) -> None:
        """Stop waiting (the save is over, or failed): drop the references not yet copied."""
        with self._lock:
            names, self._live = list(self._live), {}
        for name in names:
            self._forget(name)

    @property
    def waiting(self) -> list[str]:
        """The names of the arrays not copied yet."""
        with self._lock:
            return list(self._live)

    def _forget(self, name: str) -> None:
        key = self._owners[name]
        with _registry_lock:
            entries = _waiting.get(key)
            if entries is not None:
                entries.discard((self, name))
                if not entries:
                    del _waiting[key]
            _update_guard()
