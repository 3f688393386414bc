"""Running a model without leaving a trace: the random generator and every memory written in
place while it ran are put back afterwards.

Measuring a model (a checkpoint planner's profile) or running it again for one more answer
(``mg.func.linearize`` where its tape cannot stand for forward mode) must not train it: a
training-mode forward pass has side effects outside the tape -- BatchNorm updates its running
statistics, dropout advances the generator.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import random as _random
from .grad_mode import no_grad
from .tensor import Tensor, add_write_guard, remove_write_guard

__all__ = ["leaving_no_trace"]


@contextmanager
def leaving_no_trace(only: Callable[[Tensor], bool] | None = None) -> Iterator[None]:
    """Run a model for measuring, not for training: afterwards the random generator is where
    it was and all memory written in place meanwhile holds its old values again.

    A training-mode forward pass has side effects outside the tape -- BatchNorm
    updates its running statistics and counts its batches -- which a profiling run
    must not leave behind, wherever the module sits: a layer, a closure, a global.
    The tensor layer calls its write guards before every in-place write
    (:func:`minigrad_ckpt.tensor.add_write_guard`); the one added here copies the
    memory a write changes (its owner: views and ``.data`` aliases share one copy)
    at its first write, and writes it back at the end, newest first.  Memory that
    died meanwhile (a temporary written in place) is forgotten with it.  Only this
    thread's writes are the model's: another thread's (a loader filling a buffer)
    stay.  Other guards (an asynchronous snapshot's copy-on-write) see every write,
    the restoring ones too.

    ``only(t)``, where given, says which tensors' writes are put back: a run whose results live
    on (their saved values on a tape) must keep what it wrote into the memory it made itself.
    """
    rng_state = _random.get_rng_state()
    originals: dict[int, tuple[Any, Any, Any]] = {}  # id(owner) -> (reference to it, its copy, device)
    watchers: list[Any] = []  # the finalizers that forget memory that dies meanwhile
    mine = threading.get_ident()

    def remember(t: Tensor) -> None:
        if threading.get_ident() != mine or (only is not None and not only(t)):
            return
        owner = t._device.xp.memory_owner(t._data)
        key = id(owner)
        if key not in originals:
            originals[key] = (_reference(owner, originals, key, watchers), owner.copy(), t._device)

    add_write_guard(remember)
    try:
        yield
    finally:
        remove_write_guard(remember)
        for w in watchers:
            w.detach()
        _random.set_rng_state(rng_state)
        with no_grad():
            for ref, values, device in reversed(list(originals.values())):
                owner = ref()
                if owner is not None:  # through a tensor, so that the other guards see the write
                    Tensor.constant(owner, device).copy_(values)


def _reference(owner: Any, table: dict[int, Any], key: int, watchers: list[Any]) -> Callable[[], Any]:
    """A reference to ``owner`` that does not keep it alive, and drops ``table[key]`` when it
    dies (so that a new array given the same id is copied afresh); an array that takes no
    weak reference is held."""
    try:
        ref = weakref.ref(owner)
    except TypeError:
        return lambda: owner
    watchers.append(weakref.finalize(owner, table.pop, key, None))
    return ref


