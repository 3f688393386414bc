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

from collections import OrderedDict
from typing import Any

from ..executor import Executor
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import sections as _sections
from .format import SnapshotError
from .sections import Restoring

__all__ = ["restore", "restore_into"]


def restore(snap: Any) -> Executor:
    """A new Executor holding ``snap``'s tensors (host arrays), iteration and states (see
    :meth:`Snapshot.restore <minigrad_ckpt.snapshot.Snapshot.restore>`)."""
    ex = Executor()
    for name, arr in snap._tensors.items():
        if not name.startswith("__tape__/"):
            ex._tensors[name] = Tensor._from_data(arr)
    ex.iteration = _iteration(snap)
    ctx = Restoring(snap._tensors)
    for section in _sections.SECTIONS:
        section.attach(ex, snap.state.get(section.key), ctx)
    return ex


def restore_into(snap: Any, ex: Executor) -> Executor:
    """Install ``snap`` into ``ex``: validate and build everything, then change ``ex``."""
    if not isinstance(ex, Executor):
        raise TypeError(f"restore_into needs an Executor, got {type(ex).__name__}")
    tensors = snap._tensors
    iteration = _iteration(snap)
    # ---------------- phase 1: check and build; ex is not touched ----------------
    model_sd = _model_state(ex, tensors) if ex.model is not None else None
    fresh = {name: Tensor._from_data(arr, dtype=arr.dtype) for name, arr in tensors.items()
             if not name.startswith(("model.", "optimizer.", "__tape__/"))}
    # A user tensor the executor already holds, of the same shape and dtype, takes the values in
    # place, as the model's parameters do: a reference the caller kept stays the executor's tensor.
    in_place = {name: ex._tensors[name] for name, t in fresh.items() if _fits(ex._tensors.get(name), t)}
    ctx = Restoring(tensors, {**fresh, **in_place})  # the tape's user leaves: the ones that stay
    built = [(s, s.build(ex, snap.state.get(s.key), ctx)) for s in _sections.SECTIONS]
    built = [(s, b) for s, b in built if b is not None]
    # ---------------- phase 2: install (validated above: nothing here depends on the file) ----------------
    for section, b in built:  # first, those whose install may refuse (user code): each undoes itself
        if section.may_refuse:
            section.install(ex, b)
    if model_sd is not None:
        ex.model.load_state_dict(model_sd)
    with no_grad():
        for name, own in in_place.items():
            own.copy_(Tensor._from_data(fresh[name], device=own.device))
    ex._tensors.update({name: t for name, t in fresh.items() if name not in in_place})
    for section, b in built:
        if not section.may_refuse:
            section.install(ex, b)
    ex.iteration = iteration
    return ex


def _fits(own: Any, new: Tensor) -> bool:
    """Whether the executor's tensor ``own`` can take ``new``'s values in place."""
    return isinstance(own, Tensor) and own.is_leaf and own.shape == new.shape and own.dtype == new.dtype


def _iteration(snap: Any) -> int:
    it = snap.metadata.iteration
    if not isinstance(it, int) or isinstance(it, bool) or it < 0:
        raise SnapshotError(f"the snapshot's iteration {it!r} is not a non-negative integer")
    return it


def _model_state(ex: Executor, tensors: dict[str, Any]) -> dict[str, Tensor]:
    current = ex.model.state_dict()
    # a module's get_extra_state() (plain data, not a tensor) is not in snapshots: the model keeps its own
    out: Any = OrderedDict((k, v) for k, v in current.items() if not isinstance(v, Tensor))
    # the snapshot's arrays are checked against this model's own entries below, so they are in its format:
    # its modules' versions go with them (a _load_from_state_dict that reads local_metadata needs them)
    out._metadata = getattr(current, "_metadata", None)
    own = {k: v for k, v in current.items() if k not in out}
    missing = [k for k in own if f"model.{k}" not in tensors]
    extra = [n[6:] for n in tensors if n.startswith("model.") and n[6:] not in own]
    if missing or extra:
        raise SnapshotError(f"the snapshot does not match the model: missing {missing}, unexpected {extra}")
    for k, t in own.items():
        arr = tensors[f"model.{k}"]
        if tuple(arr.shape) != t.shape or arr.dtype != t.dtype:
            raise SnapshotError(f"model.{k}: snapshot has {arr.dtype} {tuple(arr.shape)}, the model "
                                f"{t.dtype} {t.shape}")
        out[k] = Tensor._from_data(arr, dtype=arr.dtype)
    return out
