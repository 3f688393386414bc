"""Capture: the state of an :class:`~minigrad_ckpt.Executor` as a snapshot's arrays and plain data.

Nothing here touches a file.  A capture is a copy of the arrays (so training
can go on) or, with ``copy=False``, references to the live arrays plus their
version stamps, so that a later save or restore can refuse once any of them
changed in place.
"""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..executor import Executor
from ..nn.uninitialized import is_lazy
from ..optim.optimizer import Optimizer, gradients_since_step
from ..tensor import memory_shown_outside
from ..user_frame import stacklevel_outside_the_engine
from . import sections as _sections
from .config import SnapshotConfig, SnapshotMetadata
from .format import SnapshotError
from .layout import copy_keeping_layout

__all__ = ["Capture", "capture", "check_unchanged", "pending_gradient_names", "warn_of_pending_gradients",
           "pending_gradients_checked"]

# set while a collective save captures rank 0's state: every rank has checked its own gradients already
_checked = threading.local()


@dataclass
class Capture:
    """What :func:`capture` returns: the pieces a :class:`~minigrad_ckpt.snapshot.Snapshot` is made of."""

    metadata: SnapshotMetadata
    tensors: dict[str, Any]                 # name -> array (host or device); tape arrays included
    state: dict[str, Any]                   # section key -> plain data (.sections.SECTIONS)
    versions: dict[str, tuple[list, int]]   # copy=False: name -> (the tensor's version box, its value)


def capture(ex: Executor, iteration: int | None, config: SnapshotConfig, *, copy: bool = True) -> Capture:
    """Capture ``ex`` at ``iteration`` (default ``ex.iteration``) as ``config`` asks."""
    if not isinstance(ex, Executor):
        raise TypeError(f"from_executor needs an Executor, got {type(ex).__name__}")
    _refuse_uninitialized(ex)
    it = ex.iteration if iteration is None else int(iteration)
    if not config.include_tape and not getattr(_checked, "on", False):
        # (a stored tape's backward gives its gradients again after a restore)
        warn_of_pending_gradients(pending_gradient_names(ex))
    tensors: dict[str, Any] = {}
    versions = {}
    for name, t in sorted(ex.tensors.items()):
        # memory a NumPy array of the caller shows (from_numpy) is written past every write guard:
        # copied now, or a write through that array after the call would reach the snapshot
        if copy or memory_shown_outside(t):
            tensors[name] = copy_keeping_layout(t._data)
        else:
            tensors[name] = t._data
            versions[name] = (t._version_box, t._version_box[0])
    own = set(tensors)
    state = _sections.capture_in_order(ex, config, tensors)
    if copy:  # the tape's saved arrays too: they are the live memory of tensors an optimizer step changes
        for name in set(tensors) - own:
            tensors[name] = copy_keeping_layout(tensors[name])
    meta = SnapshotMetadata(iteration=it, timestamp=time.time())
    meta.tensor_count = len(tensors)
    meta.total_bytes = int(sum(a.nbytes for a in tensors.values()))
    return Capture(meta, tensors, state, versions)


def _refuse_uninitialized(ex: Executor) -> None:
    """A lazy layer's weight before its first input has no shape and no values: stored, it would come
    back as an empty array that a resumed run takes for the weight.  So a snapshot waits for the dry
    forward (the state of a model that has had one restores into a fresh lazy model: see restore)."""
    if ex.model is None:
        return
    lazy = [k for k, v in ex.model.state_dict(keep_vars=True).items() if is_lazy(v)]
    if lazy:
        raise SnapshotError(f"the model has uninitialized parameters or buffers (lazy layers before their first "
                            f"input: {', '.join(lazy[:4])}{', ...' if len(lazy) > 4 else ''}); call `forward` "
                            "with a dummy batch to initialize them before taking a snapshot")


def pending_gradient_names(ex: Executor) -> list[str]:
    """The names of the parameters holding gradients no optimizer step has used yet: a snapshot taken
    between the micro-batches of an accumulating step.  It saves no gradients, so a resume would redo
    that step with part of its gradient and differ from the run that never stopped -- without a word."""
    if not isinstance(ex.optimizer, Optimizer):
        return []
    names = ex._param_names()
    return [names[id(p)] for p in gradients_since_step(ex.optimizer)]


def warn_of_pending_gradients(pending: list[str], ranks: list[int] | None = None) -> None:
    """Warn, at the user's line, that the parameters named in ``pending`` lose their gradients (on
    ``ranks``, in a data-parallel save: each rank accumulates its own inside ``no_sync()``)."""
    if not pending:
        return
    listed = ", ".join(repr(n) for n in pending[:5]) + (", ..." if len(pending) > 5 else "")
    where = "" if ranks is None else f" on rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"
    warnings.warn(f"{len(pending)} parameters ({listed}) hold gradients accumulated since the optimizer's last "
                  f"step{where}, and a snapshot does not save gradients: a resume from it would redo that step "
                  f"without them. Snapshot after optimizer.step() (or zero_grad()), not between micro-batches",
                  UserWarning, stacklevel=stacklevel_outside_the_engine())


@contextlib.contextmanager
def pending_gradients_checked() -> Iterator[None]:
    """Inside, a capture does not check for pending gradients: a collective save checked every rank's
    and warned on every rank before rank 0 captures the replicated state."""
    old = getattr(_checked, "on", False)
    _checked.on = True
    try:
        yield
    finally:
        _checked.on = old


def check_unchanged(versions: dict[str, tuple[list, int]]) -> None:
    """Raise if a tensor captured with ``copy=False`` was changed in place since."""
    for name, (box, v) in versions.items():
        if box[0] != v:
            raise SnapshotError(f"tensor {name!r} changed in place after this copy=False snapshot was "
                                f"taken (an optimizer step?); take a new snapshot")
