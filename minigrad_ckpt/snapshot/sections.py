"""The sections of a snapshot: the training state beside the tensors, in one table.

A snapshot's header holds, besides its fixed fields (format, iteration, the
tensor table, ...), one field per *section* of executor state: ``rng``,
``optimizer``, ``scheduler``, ``tape`` and ``objects`` (what
``Executor.register_state`` holds: data loaders, counters).  Each section is
one small class below, with everything that touches its field side by side:

============  =================================================================
``capture``   the executor's state as plain data (arrays it needs go into ``arrays``)
``check``     the reader's check of the field's shape, before anything uses it
``on_load``   a deeper check ``Snapshot.load`` makes (the tape's ops exist)
``describe``  its line in ``minigrad-ckpt snapshot inspect`` (or None)
``build``     ``restore_into``'s first phase: the validated new state; ``ex`` is untouched
``install``   its second phase: put that state in (nothing left to fail on the file)
``attach``    ``Snapshot.restore``: a fresh executor keeps the state (``ex.restored_*``)
============  =================================================================

Capture, the header writer and reader, ``inspect`` and both restores walk
:data:`SECTIONS`, so adding a section is adding a class here.  A section that
older files lack is ``optional``: absent from a header it reads as None, and
it is written only when it holds something, so older files still load and
files without it are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO, Any

from .. import random as _random
from ..backend import cpu
from ..executor import Executor, holds_tensor
from ..tensor import Tensor
from . import format as _format
from .format import UINT64_MAX, LoadLimits, SnapshotError, TensorEntry, is_int, short
from .object_tree import is_object_entry, object_entry, object_state
from .tape_codec import check_tape, decode_tape, encode_tape

__all__ = ["Section", "SECTIONS", "Restoring", "capture_in_order", "model_extra_states", "read_header",
           "validate_header"]


@dataclass
class Restoring:
    """What a section's ``build``/``attach`` may read besides its own field."""

    tensors: dict[str, Any]                                  # the snapshot's arrays by name
    users: dict[str, Tensor] = field(default_factory=dict)   # restore_into: the user tensors it installs
    resharding: bool = False                                 # an elastic resume: the snapshot has a ranks field


class Section:
    """One field of the header and the executor state it holds (see the module docstring)."""

    key: str = ""
    optional = False     # absent from older files (read as None) and written only when not None
    may_refuse = False   # install can fail (user code): it runs first and undoes itself on failure
    captured_last = False  # captured after every other section (capture_in_order), in the header where it is

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        raise NotImplementedError

    def check(self, value: Any) -> None:
        """Raise SnapshotError unless ``value`` (from a file) has this field's shape."""

    def on_load(self, value: Any) -> None:
        """A deeper check of a loaded field (raises SnapshotError)."""

    def describe(self, value: Any) -> str | None:
        return None

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        """The state to install into ``ex``, checked; None: nothing to install."""
        return None

    def install(self, ex: Executor, built: Any) -> Any:
        """Put ``built`` (from :meth:`build`, not None) into ``ex``.  A section that ``may_refuse``
        undoes itself before it raises, and returns a function that puts the previous state back
        (``restore_into`` calls it when a later step refuses)."""

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        """Keep ``value`` on a new executor made by ``Snapshot.restore``."""


class RngSection(Section):
    """The engine generator: ``{"seed": int, "counter": int}``, both in [0, 2**64).

    Taken last: taking a registered object's state may draw from the generator (a DataLoader's
    state mid-epoch draws the rest of its epoch, and a shuffling sampler's keys come from it), and
    the resumed run must go on from after that draw, as the uninterrupted one does."""

    key = "rng"
    captured_last = True

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        return _random.get_rng_state()

    def check(self, value: Any) -> None:
        if value is None:
            return
        if not (isinstance(value, dict) and set(value) == {"seed", "counter"}
                and all(is_int(v) and 0 <= v <= UINT64_MAX for v in value.values())):
            raise SnapshotError(f"the RNG state {short(value)} is malformed (want {{'seed': int, 'counter': int}}, "
                                f"both in [0, 2**64))")

    def describe(self, value: Any) -> str | None:
        return f"{{'seed': {value['seed']}, 'counter': {value['counter']}}}"

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        self.check(value)  # the reader's rule again: a snapshot built in memory was never read
        return None if value is None else {"seed": value["seed"], "counter": value["counter"]}

    def install(self, ex: Executor, built: Any) -> None:
        _random.set_rng_state(built)

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        ex.restored_rng_state = value


class OptimizerSection(Section):
    """The optimizer's plain data (type, groups, step counts); its moments are tensors
    named ``optimizer.state.<param>.<key>`` (the codec is ``Executor.optimizer_state``).  Groups
    whose entries other than tensors are more than plain data (a user's key holding a map with int
    keys, an array) are also kept exactly, ``"exact_groups": {"tree", "arrays"}``, which the
    restore loads."""

    key = "optimizer"

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        value = ex.optimizer_state()
        if value is not None:
            # (a tensor hyper-parameter -- an lr, betas of tensors -- is exact in the plain groups already:
            # the restore places it on the optimizer's device)
            groups = [{k: v for k, v in g.items() if k not in ("params", "param_names") and not holds_tensor(v)}
                      for g in ex.optimizer.param_groups]
            if _beyond_plain(groups):
                value.update(_exact_entry("exact_groups", value["type"], groups))
            # entries under keys that are not parameters (a hand-written optimizer's state["global_step"]):
            # their tensors (no own value tells the restore to make them again) and more than plain data, exactly
            other = {str(k): st for k, st in ex.optimizer.state.items() if not isinstance(k, Tensor)}
            if holds_tensor(other) or _beyond_plain(other):
                value.update(_exact_entry("exact_other", value["type"], other))
        return value

    def check(self, value: Any) -> None:
        if value is not None and not (isinstance(value, dict) and isinstance(value.get("type"), str)
                                      and isinstance(value.get("param_groups"), list)
                                      and all(isinstance(g, dict) for g in value["param_groups"])
                                      and isinstance(value.get("scalars"), dict)):
            raise SnapshotError("the header's optimizer state is malformed")
        _check_exact(value, "exact_groups", "optimizer")
        _check_exact(value, "exact_other", "optimizer")

    def describe(self, value: Any) -> str | None:
        return value["type"]

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        if ex.optimizer is None:
            return None
        if value is None:
            raise SnapshotError("the executor has an optimizer but the snapshot holds no optimizer state")
        self.check(value)  # (a snapshot never saved was not read: its field is checked here)
        exact, other = _exact_of(value, "exact_groups"), _exact_of(value, "exact_other")
        return _fitted("optimizer", ex.optimizer_state_dict_from, value, ctx.tensors, exact, other)

    def install(self, ex: Executor, built: Any) -> None:
        ex.optimizer.load_state_dict(built)

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        ex.restored_optimizer_state = value


class SchedulerSection(Section):
    """The learning-rate scheduler's fields: ``{"type": class name, "state": {...}}``, and for a
    state that is more than plain data (a ``LambdaLR``'s callable object with int keys, arrays,
    tuples in its attributes) ``"exact": {"tree", "arrays"}``, the state as
    :func:`.object_tree.object_entry` keeps it, which the restore loads (``state`` stays: older
    readers, ``inspect`` and the checks read it)."""

    key = "scheduler"

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        value = ex.scheduler_state()
        if value is not None:
            raw = ex.scheduler.state_dict()
            if _beyond_plain(raw):  # (else the plain state gives it back: nothing more is written)
                value.update(_exact_entry("exact", value["type"], raw))
        return value

    def check(self, value: Any) -> None:
        if value is not None and not (isinstance(value, dict) and isinstance(value.get("type"), str)
                                      and isinstance(value.get("state"), dict)):
            raise SnapshotError("the header's scheduler state is malformed")
        _check_exact(value, "exact", "scheduler")

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        if ex.scheduler is None or value is None:
            return None
        self.check(value)  # (a snapshot never saved was not read: its field is checked here)
        return _fitted("scheduler", ex.scheduler_state_from, value, _exact_of(value, "exact"))

    def install(self, ex: Executor, built: Any) -> None:
        ex.scheduler.load_state_dict(built)

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        ex.restored_scheduler_state = value


class TapeSection(Section):
    """The recorded forward tape (``SnapshotConfig.include_tape``); its saved arrays are
    tensors named ``__tape__/<n>``."""

    key = "tape"

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        if not config.include_tape:
            return None
        if ex.tape is None:
            raise SnapshotError("include_tape is set but the executor has no recorded tape "
                                "(call Executor.record(output) after the forward pass)")
        leaf_names = {id(t): n for n, t in ex.live_tensors().items()}
        tape, tape_arrays = encode_tape(ex.tape, leaf_names)
        arrays.update(tape_arrays)
        return tape

    def check(self, value: Any) -> None:
        if value is not None and not (isinstance(value, dict) and isinstance(value.get("nodes"), list)
                                      and isinstance(value.get("output"), str)):
            raise SnapshotError("the header's tape is malformed")

    def on_load(self, value: Any) -> None:
        check_tape(value)

    def describe(self, value: Any) -> str | None:
        return f"{len(value['nodes'])} nodes"

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        if value is None:
            return None
        leaves = ex.live_tensors()
        leaves.update(ctx.users)  # the tape's user-tensor leaves are the ones restore_into installs
        device = next(iter(leaves.values())).device if leaves else cpu
        return _decode(value, ctx.tensors, leaves, device)

    def install(self, ex: Executor, built: Any) -> None:
        ex.tape = built

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        if value is None:
            return
        leaves = dict(ex._tensors)
        for t in leaves.values():
            if t.dtype.kind in "fc":
                t.requires_grad_()
        ex.tape = _decode(value, ctx.tensors, leaves, cpu)


class ObjectsSection(Section):
    """``Executor.register_state`` objects: ``{name: {"type": class name, "state": plain data}}``, or
    for a state that is more than plain data (tensors, int keys, tuples: another optimizer's state)
    ``{name: {"type", "tree", "arrays"}}`` (:func:`.object_tree.object_entry`)."""

    key = "objects"
    optional = True      # present only when objects are registered
    may_refuse = True    # an object's own load_state_dict may refuse its state

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        return capture_objects(ex)

    def check(self, value: Any) -> None:
        if value is not None and not (isinstance(value, dict) and all(
                isinstance(k, str) and is_object_entry(v) for k, v in value.items())):
            raise SnapshotError("the header's registered-object states are malformed (want {name: {'type': str, "
                                "'state': ...}})")

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        """The states for ``ex``'s registered objects, checked against their names and types."""
        saved = {} if value is None else value
        if not isinstance(saved, dict):
            raise SnapshotError("the snapshot's object states are malformed")
        out = {}
        for name, obj in ex._objects.items():
            entry = saved.get(name)
            if not is_object_entry(entry):
                raise SnapshotError(f"the executor has a registered object {name!r} the snapshot holds no "
                                    f"state for (it has {sorted(map(str, saved))})"[:300])
            if entry.get("type") != type(obj).__name__:
                raise SnapshotError(f"registered object {name!r}: the snapshot holds a {entry.get('type')!r}, "
                                    f"the executor a {type(obj).__name__}"[:300])
            if ctx.resharding and callable(getattr(obj, "reshard_state_dict", None)):
                continue  # the ranks section gives it a whole state of its own, made for it (another batch_size)
            out[name] = object_state(entry)
        return out or None

    def install(self, ex: Executor, built: Any) -> Any:
        """``load_state_dict`` on each object; if one refuses, the ones already loaded get
        their previous state back and a SnapshotError is raised.  Returns the undo of it all."""
        done: list[tuple[Any, Any]] = []

        def undo() -> None:
            for o, b in reversed(done):
                o.load_state_dict(b)

        for name, state in built.items():
            obj = ex._objects[name]
            before = obj.state_dict()
            try:
                obj.load_state_dict(state)
            except Exception as exc:
                undo()
                raise SnapshotError(f"registered object {name!r} refused the snapshot's state: {exc}"[:300]) from None
            done.append((obj, before))
        return undo

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        ex.restored_object_states = None if value is None else {
            name: {"type": entry["type"], "state": object_state(entry)} for name, entry in value.items()}


def capture_in_order(ex: Executor, config: Any, arrays: dict[str, Any]) -> dict[str, Any]:
    """Every section's ``capture``, by key in header order, those ``captured_last`` (the RNG) after
    the others: what a capture draws from the engine generator is behind the RNG state it keeps."""
    taken = {s.key: s.capture(ex, config, arrays) for s in sorted(SECTIONS, key=lambda s: s.captured_last)}
    return {s.key: taken[s.key] for s in SECTIONS}


def capture_objects(ex: Executor) -> dict[str, Any] | None:
    """The registered objects' states as header (or rank-file) data, each by
    :func:`.object_tree.object_entry`: plain data as it is, anything else as a tree with its arrays."""
    if not ex._objects:
        return None
    return {name: object_entry(type(obj).__name__, obj.state_dict()) for name, obj in ex._objects.items()}


class ModelExtraSection(Section):
    """The model's modules' ``get_extra_state()``: what ``model.state_dict()`` holds beside the
    tensors, under ``<module>._extra_state`` (a step counter, a vocabulary, a quantizer's ranges),
    ``{state-dict key: object entry}`` (:func:`.object_tree.object_entry`: plain data as it is,
    anything else as a tree with its arrays).  An extra state that is a tensor is a tensor entry
    ``model.<key>`` instead.  ``restore_into`` gives it to the model's ``load_state_dict`` with its
    tensors (:func:`model_extra_states`), so ``build`` has nothing of its own; a file without the field
    leaves the model's own."""

    key = "model_extra"
    optional = True      # present only when the model has extra state that is not a tensor

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        if ex.model is None:
            return None
        out = {}
        for k, v in ex.model.state_dict().items():
            if not isinstance(v, Tensor):
                try:
                    out[k] = object_entry("extra_state", v)
                except (TypeError, ValueError) as exc:
                    raise SnapshotError(f"model.{k}: the module's get_extra_state() holds what a snapshot cannot "
                                        f"store: {exc}"[:300]) from None
        return out or None

    def check(self, value: Any) -> None:
        if value is not None and not (isinstance(value, dict) and value and all(
                isinstance(k, str) and is_object_entry(v) for k, v in value.items())):
            raise SnapshotError("the header's model extra states are malformed (want {state-dict key: "
                                "{'type': str, 'state': ...}})")

    def describe(self, value: Any) -> str | None:
        return ", ".join(sorted(value))

    def attach(self, ex: Executor, value: Any, ctx: Restoring) -> None:
        ex.restored_model_extra_states = model_extra_states(value)


def model_extra_states(value: Any) -> dict[str, Any] | None:
    """The extra states a ``model_extra`` field holds, by state-dict key (None: the file has none)."""
    ModelExtraSection().check(value)  # (a snapshot built in memory was never read)
    return None if value is None else {k: object_state(entry) for k, entry in value.items()}


class RanksSection(Section):
    """An elastic resume (a snapshot of N ranks loaded by M != N, :mod:`.ranks`): every old rank's
    registered-object states, ``{"rank", "world_size", "states": [objects of old rank 0, ...]}``.
    Objects with ``reshard_state_dict(states, rank, world_size)`` (a DataLoader) get their share of
    the interrupted epoch from it instead of this rank's own state, which the objects section leaves
    to it: the share is a whole state, cut into this loader's batches (its batch_size may be another).
    Only in memory: nothing captures it, so no file holds it."""

    key = "ranks"
    optional = True
    may_refuse = True

    def capture(self, ex: Executor, config: Any, arrays: dict[str, Any]) -> Any:
        return None

    def check(self, value: Any) -> None:
        if value is not None and not (isinstance(value, dict) and set(value) == {"rank", "world_size", "states"}
                                      and is_int(value["rank"]) and is_int(value["world_size"])
                                      and 0 <= value["rank"] < value["world_size"]
                                      and isinstance(value["states"], list) and value["states"]):
            raise SnapshotError("the per-rank states of an elastic resume are malformed")

    def build(self, ex: Executor, value: Any, ctx: Restoring) -> Any:
        if value is None:
            return None
        self.check(value)
        out = {}
        for name, obj in ex._objects.items():
            reshard = getattr(obj, "reshard_state_dict", None)
            if not callable(reshard):
                continue  # it keeps the state of the rank with its number (or rank 0's)
            entries = [(s or {}).get(name) for s in value["states"]]
            if not all(is_object_entry(e) for e in entries):
                raise SnapshotError(f"registered object {name!r}: not every old rank saved a state for it")
            states = [object_state(e) for e in entries]
            try:
                out[name] = reshard(states, value["rank"], value["world_size"])
            except Exception as exc:
                raise SnapshotError(f"registered object {name!r} cannot take its share of the {len(states)} "
                                    f"old ranks' states on {value['world_size']} ranks: {exc}"[:300]) from None
        return out or None

    def install(self, ex: Executor, built: Any) -> Any:
        return ObjectsSection.install(self, ex, built)  # the same all-or-nothing loading


#: Every section, in header order.
SECTIONS: tuple[Section, ...] = (RngSection(), OptimizerSection(), SchedulerSection(), TapeSection(),
                                 ObjectsSection(), ModelExtraSection(), RanksSection())


def _beyond_plain(v: Any) -> bool:
    """Whether ``v`` holds what a header's plain data does not give back, even with the own value's
    help (``Executor``'s ``_like`` turns lists back into tuples and places tensors): a key that is
    not a string, an array, a NumPy number, any other object."""
    if isinstance(v, (list, tuple)):
        return any(_beyond_plain(x) for x in v)
    if isinstance(v, dict):
        return any(not isinstance(k, str) or _beyond_plain(x) for k, x in v.items())
    return not (v is None or type(v) in (bool, int, float, str) or isinstance(v, Tensor))



def _exact_entry(key: str, type_name: str, state: Any) -> dict[str, Any]:
    """``{key: {"tree", "arrays"}}``, ``state`` as :func:`.object_tree.object_entry` keeps it exactly, or
    nothing where that is its plain form: a NumPy float is a float there (``np.float64`` is one; a
    schedule computed with ``np.cos`` leaves them in the groups and the scheduler), and the plain
    header data gives it back as such."""
    entry = object_entry(type_name, state)
    return {key: {"tree": entry["tree"], "arrays": entry["arrays"]}} if "tree" in entry else {}


def _check_exact(value: Any, key: str, what: str) -> None:
    """Raise unless ``value[key]``, where present, is an :func:`.object_tree.object_entry` tree."""
    exact = value.get(key) if isinstance(value, dict) else None
    if exact is not None and not (isinstance(exact, dict) and "tree" in exact
                                  and is_object_entry({"type": "", **exact})):
        raise SnapshotError(f"the header's exact {what} state is malformed")


def _exact_of(value: dict[str, Any], key: str) -> Any:
    """The state kept exactly under ``value[key]`` (checked by :func:`_check_exact`), or None."""
    exact = value.get(key)
    return None if exact is None else object_state({"type": value["type"], **exact})


def _fitted(what: str, convert: Any, *args: Any) -> Any:
    """``convert(*args)``, the executor's own check of a saved state, whose refusal
    (``ValueError``) becomes a SnapshotError naming the section."""
    try:
        return convert(*args)
    except ValueError as exc:
        raise SnapshotError(f"the snapshot's {what} state does not fit: {exc}") from None


def _decode(tape: Any, arrays: dict[str, Any], leaves: dict[str, Tensor], device: Any) -> Tensor:
    """``decode_tape``, with an op's own refusal of its attributes (TypeError, ValueError) as a
    SnapshotError too: the tape comes from a file."""
    try:
        return decode_tape(tape, arrays, leaves, device)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise SnapshotError(f"tape: cannot rebuild it: {type(exc).__name__}: {exc}"[:300]) from None


Header = tuple[dict, list[TensorEntry], int]


def read_header(f: IO[bytes], file_size: int, limits: LoadLimits) -> Header:
    """:func:`.format.read_header` with these sections' checks."""
    return _format.read_header(f, file_size, limits, SECTIONS)


def validate_header(header: Any, limits: LoadLimits) -> None:
    """:func:`.format.validate_header` with these sections' checks."""
    _format.validate_header(header, limits, SECTIONS)
