"""Restore: a snapshot's state back into an executor -- a new one, or an existing one, all or nothing.

``restore_into`` works in two phases.  First it checks everything and builds
every new value (model tensors, the optimizer's state dict, the scheduler's
state, the RNG state, user tensors, the decoded tape) without touching the
executor; only when all of that succeeded does it install them, with calls
that can no longer fail on the snapshot's content.  So a bad snapshot raises
:class:`SnapshotError` and leaves model, optimizer, scheduler, RNG, tensors,
tape and iteration exactly as they were.
"""

from __future__ import annotations

from typing import Any

from .. import random as _random
from ..backend import cpu
from ..executor import Executor
from ..tensor import Tensor
from .format import SnapshotError, check_rng_state
from .tape_codec import decode_tape

__all__ = ["restore", "restore_into"]

def restore(snap: Any) -> Executor:
    """A new Executor holding ``snap``'s tensors (host arrays), iteration and states (see
    :meth:`Snapshot.restore <minigrad_ckpt.snapshot.Snapshot.restore>`)."""
    ex = Executor()
    for name, arr in snap._tensors.items():
        if not name.startswith("__tape__/"):
            ex._tensors[name] = Tensor(arr)
    ex.iteration = _iteration(snap)
    ex.restored_optimizer_state = snap.state.get("optimizer")
    ex.restored_scheduler_state = snap.state.get("scheduler")
    ex.restored_rng_state = snap.state.get("rng")
    ex.restored_object_states = snap.state.get("objects")
    if snap.state.get("tape") is not None:
        leaves = dict(ex._tensors)
        for t in leaves.values():
            if t.dtype.kind == "f":
                t.requires_grad_()
        ex.tape = _decode(snap.state["tape"], snap._tensors, leaves, cpu)
    return ex


def restore_into(snap: Any, ex: Executor) -> Executor:
    """Install ``snap`` into ``ex``: validate and build everything, then change ``ex``."""
    if not isinstance(ex, Executor):
        raise TypeError(f"restore_into needs an Executor, got {type(ex).__name__}")
    tensors = snap._tensors
    iteration = _iteration(snap)
    # ---------------- phase 1: check and build; ex is not touched ----------------
    model_sd = _model_state(ex, tensors) if ex.model is not None else None
    opt_sd = None
    if ex.optimizer is not None:
        if snap.state.get("optimizer") is None:
            raise SnapshotError("the executor has an optimizer but the snapshot holds no optimizer state")
        try:
            opt_sd = ex.optimizer_state_dict_from(snap.state["optimizer"], tensors)
        except ValueError as exc:
            raise SnapshotError(f"the snapshot's optimizer state does not fit: {exc}") from None
    sched = None
    if ex.scheduler is not None and snap.state.get("scheduler") is not None:
        try:
            sched = ex.scheduler_state_from(snap.state["scheduler"])
        except ValueError as exc:
            raise SnapshotError(f"the snapshot's scheduler state does not fit: {exc}") from None
    rng = _rng_state(snap.state.get("rng"))
    objects = _object_states(ex, snap.state.get("objects"))
    users = {name: Tensor(arr, dtype=arr.dtype) for name, arr in tensors.items()
             if not name.startswith(("model.", "optimizer.", "__tape__/"))}
    tape = None
    if snap.state.get("tape") is not None:
        leaves = ex.live_tensors()
        leaves.update(users)  # the tape's user-tensor leaves are the ones installed below
        device = next(iter(leaves.values())).device if leaves else cpu
        tape = _decode(snap.state["tape"], tensors, leaves, device)
    # ---------------- phase 2: install (validated above: nothing here depends on the file) ----------------
    _load_objects(ex, objects)  # first: an object's own load_state_dict may refuse; that undoes itself
    if model_sd is not None:
        ex.model.load_state_dict(model_sd)
    if opt_sd is not None:
        ex.optimizer.load_state_dict(opt_sd)
    if sched is not None:
        ex.scheduler.load_state_dict(sched)
    ex._tensors.update(users)
    if rng is not None:
        _random.set_rng_state(rng)
    ex.iteration = iteration
    if tape is not None:
        ex.tape = tape
    return ex


def _decode(tape: Any, arrays: dict[str, Any], leaves: dict[str, Tensor], device: Any) -> Tensor:
    """``decode_tape``, with an op's own refusal of its attributes (TypeError, ValueError) as a
    SnapshotError too: the tape comes from a file."""
    try:
        return decode_tape(tape, arrays, leaves, device)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise SnapshotError(f"tape: cannot rebuild it: {type(exc).__name__}: {exc}"[:300]) from None


def _iteration(snap: Any) -> int:
    it = snap.metadata.iteration
    if not isinstance(it, int) or isinstance(it, bool) or it < 0:
        raise SnapshotError(f"the snapshot's iteration {it!r} is not a non-negative integer")
    return it


def _model_state(ex: Executor, tensors: dict[str, Any]) -> dict[str, Tensor]:
    own = ex.model.state_dict()
    missing = [k for k in own if f"model.{k}" not in tensors]
    extra = [n[6:] for n in tensors if n.startswith("model.") and n[6:] not in own]
    if missing or extra:
        raise SnapshotError(f"the snapshot does not match the model: missing {missing}, unexpected {extra}")
    out = {}
    for k, t in own.items():
        arr = tensors[f"model.{k}"]
        if tuple(arr.shape) != t.shape or arr.dtype != t.dtype:
            raise SnapshotError(f"model.{k}: snapshot has {arr.dtype} {tuple(arr.shape)}, the model "
                                f"{t.dtype} {t.shape}")
        out[k] = Tensor(arr, dtype=arr.dtype)
    return out


def _object_states(ex: Executor, saved: Any) -> dict[str, Any]:
    """The states for ``ex``'s registered objects (``Executor.register_state``), checked."""
    saved = {} if saved is None else saved
    if not isinstance(saved, dict):
        raise SnapshotError("the snapshot's object states are malformed")
    out = {}
    for name, obj in ex._objects.items():
        entry = saved.get(name)
        if not isinstance(entry, dict) or "state" not in entry:
            raise SnapshotError(f"the executor has a registered object {name!r} the snapshot holds no state "
                                f"for (it has {sorted(map(str, saved))})"[:300])
        if entry.get("type") != type(obj).__name__:
            raise SnapshotError(f"registered object {name!r}: the snapshot holds a {entry.get('type')!r}, the "
                                f"executor a {type(obj).__name__}"[:300])
        out[name] = entry["state"]
    return out


def _load_objects(ex: Executor, states: dict[str, Any]) -> None:
    """``load_state_dict`` on each registered object; if one refuses its state, the ones
    already loaded get their previous state back and a SnapshotError is raised."""
    done: list[tuple[Any, Any]] = []
    for name, state in states.items():
        obj = ex._objects[name]
        before = obj.state_dict()
        try:
            obj.load_state_dict(state)
        except Exception as exc:
            for o, b in reversed(done):
                o.load_state_dict(b)
            raise SnapshotError(f"registered object {name!r} refused the snapshot's state: {exc}"[:300]) from None
        done.append((obj, before))


def _rng_state(rng: Any) -> dict[str, int] | None:
    check_rng_state(rng)  # the reader's rule, applied again to a snapshot built in memory
    return None if rng is None else {"seed": rng["seed"], "counter": rng["counter"]}
