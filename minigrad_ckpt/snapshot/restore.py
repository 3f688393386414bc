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

import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..executor import Executor
from ..grad_mode import no_grad
from ..nn.uninitialized import is_lazy
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
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
    ex.resumed_from = _origin(snap, ex.iteration)
    return ex


def restore_into(snap: Any, ex: Executor) -> Executor:
    """Install ``snap`` into ``ex``: validate and build everything, then change ``ex``."""
    if not isinstance(ex, Executor):
        raise TypeError(f"restore_into needs an Executor, got {type(ex).__name__}")
    tensors = snap._tensors
    iteration = _iteration(snap)
    # ---------------- phase 1: check and build; ex is not touched ----------------
    model_sd = _model_state(ex, tensors, snap.state.get("model_extra")) if ex.model is not None else None
    fresh = {name: Tensor._from_data(arr, dtype=arr.dtype) for name, arr in tensors.items()
             if not name.startswith(("model.", "optimizer.", "__tape__/"))}
    # A user tensor the executor already holds, of the same shape and dtype, takes the values in
    # place, as the model's parameters do: a reference the caller kept stays the executor's tensor.
    in_place = {name: ex._tensors[name] for name, t in fresh.items() if _fits(ex._tensors.get(name), t)}
    ctx = Restoring(tensors, {**fresh, **in_place},  # the tape's user leaves: the ones that stay
                    resharding=snap.state.get("ranks") is not None)
    built = [(s, s.build(ex, snap.state.get(s.key), ctx)) for s in _sections.SECTIONS]
    built = [(s, b) for s, b in built if b is not None]
    # ---------------- phase 2: install (validated above: nothing here depends on the file) ----------------
    undo: list[Any] = []
    try:  # first, the steps that run user code and may refuse: each undoes itself, and the earlier ones too
        for section, b in built:
            if section.may_refuse:
                undo.append(section.install(ex, b))
        if model_sd is not None:
            _load_model(ex.model, model_sd)
    except SnapshotError:
        for u in reversed(undo):
            u()
        raise
    with no_grad():
        for name, own in in_place.items():
            own.copy_(Tensor._from_data(fresh[name], device=own.device))
    ex._tensors.update({name: t for name, t in fresh.items() if name not in in_place})
    for section, b in built:
        if not section.may_refuse:
            section.install(ex, b)
    ex.iteration = iteration
    ex.resumed_from = _origin(snap, iteration)
    left_out = _left_out(snap, ex)
    if left_out:
        warnings.warn(f"restore_into: the snapshot holds state this executor has no place for, not restored: "
                      f"{'; '.join(left_out)} (build the executor with it, or register it, to resume it)",
                      stacklevel=stacklevel_outside_the_engine())
    return ex


def _left_out(snap: Any, ex: Executor) -> list[str]:
    """What of ``snap`` ``restore_into`` had nowhere to put in ``ex``: the model's tensors (no model),
    the optimizer's and scheduler's states (none in ``ex``), registered objects ``ex`` did not register.
    A resume script that forgot one (``register_state("loader", loader)``) would otherwise go on from
    a fresh one -- another data order than the run that never stopped -- without a word."""
    out = []
    if ex.model is None and any(name.startswith("model.") for name in snap._tensors):
        out.append("the model's tensors (the executor has no model)")
    for key, what in (("optimizer", "optimizer"), ("scheduler", "scheduler")):
        saved = snap.state.get(key)
        if saved is not None and getattr(ex, what) is None:
            out.append(f"the {what}'s state ({saved.get('type') if isinstance(saved, dict) else '?'})")
    objects = snap.state.get("objects")
    if isinstance(objects, dict):
        names = sorted(str(n) for n in objects if n not in ex._objects)
        if names:
            out.append(f"registered objects {names}")
    return out


def _origin(snap: Any, iteration: int) -> tuple[str, str, int] | None:
    """Where ``snap`` was read from, for :attr:`Executor.resumed_from`; None for one never saved."""
    if snap.path is None:
        return None
    return str(Path(snap.path).resolve()), snap.metadata.checksum, iteration


def _load_model(model: Any, state: dict[str, Any]) -> None:
    """``model.load_state_dict(state)``: checked in phase 1, so only a module's ``set_extra_state``
    (user code, given the snapshot's extra state) can refuse it; then the model gets its previous
    state back (a copy is kept only for a model with extra state) and a SnapshotError is raised."""
    extra = [k for k, v in state.items() if not isinstance(v, Tensor)]
    before = None
    if extra:
        with no_grad():
            current = model.state_dict()
            before = OrderedDict((k, v.detach().clone() if isinstance(v, Tensor) else v) for k, v in current.items())
            before._metadata = getattr(current, "_metadata", None)  # type: ignore[attr-defined]
    try:
        model.load_state_dict(state)
    except Exception as exc:
        if before is None:
            raise
        model.load_state_dict(before)
        raise SnapshotError(f"the model refused the snapshot's extra state ({', '.join(extra)}): "
                            f"{type(exc).__name__}: {exc}"[:300]) from None


def _fits(own: Any, new: Tensor) -> bool:
    """Whether the executor's tensor ``own`` can take ``new``'s values in place."""
    return isinstance(own, Tensor) and own.is_leaf and own.shape == new.shape and own.dtype == new.dtype


def _iteration(snap: Any) -> int:
    it = snap.metadata.iteration
    if not isinstance(it, int) or isinstance(it, bool) or it < 0:
        raise SnapshotError(f"the snapshot's iteration {it!r} is not a non-negative integer")
    return it


def _model_state(ex: Executor, tensors: dict[str, Any], extra: Any) -> dict[str, Any]:
    """The state dict for the model's ``load_state_dict``: the snapshot's tensors and its modules'
    extra states (``extra``, the ``model_extra`` field), each checked against the model's own."""
    current = ex.model.state_dict()
    # a module's get_extra_state() that is not a tensor: the snapshot's, or the model's own from a file without it
    out: Any = OrderedDict((k, v) for k, v in current.items() if not isinstance(v, Tensor))
    saved_extra = _sections.model_extra_states(extra)
    if saved_extra is not None:
        missing, unexpected = sorted(set(out) - set(saved_extra)), sorted(set(saved_extra) - set(out))
        if missing or unexpected:
            raise SnapshotError(f"the snapshot's extra states do not match the model's: missing {missing}, "
                                f"unexpected {unexpected}"[:300])
        out.update(saved_extra)
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
        # a lazy layer's weight not yet materialized (a resume script builds the model and restores before
        # any forward) has no shape to check: load_state_dict materializes it with the snapshot's, as from a file
        shape = None if is_lazy(t) else t.shape
        if (shape is not None and tuple(arr.shape) != shape) or arr.dtype != t.dtype:
            raise SnapshotError(f"model.{k}: snapshot has {arr.dtype} {tuple(arr.shape)}, the model "
                                f"{t.dtype} {'(uninitialized)' if shape is None else shape}")
        out[k] = Tensor._from_data(arr, dtype=arr.dtype)
    return out
