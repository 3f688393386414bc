"""What the tape explorer shows, as plain data: the tape, and a backward pass run step by step.

:func:`record_backward` runs ``mg.backward_steps(loss)`` to the end and writes
down, for the page to play back, what each :class:`BackwardStep` reported --
its index, op, node, the gradient that arrived, what it sent to each input and
gave to the leaves, the bytes the memory ledger released and the segment it
replayed -- plus, before the pass, the tape itself: every node's op, inputs,
shape and dtype, the values the tape keeps, the leaves and the checkpointed
segments.  Everything is JSON-ready (lists, dicts, numbers, strings).

Arrays become *summaries*: a small array is written out (``"values"``), a
large one as statistics (``shape``, ``dtype``, ``min``, ``max``, ``mean``,
``norm``; for a complex array ``min``/``max`` are of ``|x|``).  Numbers keep six
significant digits; NaN and infinities are the strings ``"nan"``, ``"inf"``,
``"-inf"`` (JSON has no such numbers).

It is a backward pass: afterwards the leaves' ``.grad`` hold what
``loss.backward()`` would have left, and the graph is consumed unless
``retain_graph=True``.

The memory ledger: if it was tracking when the forward pass ran
(``with mg.memory.track():``), the timeline is the ledger's own.  If it was
not and the tape has no checkpointed segment, the pass runs with the ledger
on, after counting what the tape holds exactly as the forward pass would
have (each node's saved arrays, :func:`~minigrad_ckpt.memory.saved_arrays`):
into the tracking on now, if one began after the forward pass, or into one
turned on here and put back as it was afterwards.  A checkpointed tape whose
forward pass was not tracked has no timeline (its kept values were never
counted): the page says so.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Iterator, Mapping
from typing import Any

from ..backend import host_numpy, to_host
from ..backward_steps import BackwardStep, backward_steps
from ..memory import is_parameter_edge, saved_arrays, track
from ..memory import ledger as _ledger
from ..tape import DROPPED, FREED, Node, PackedSaved, walk
from ..tensor import Tensor

__all__ = ["record_backward", "summarize", "known_outputs"]


def _number(v: Any) -> Any:
    """One element as JSON: six significant digits; NaN/inf as strings; complex as ``"a+bj"``."""
    if isinstance(v, (complex, host_numpy.complexfloating)):
        return f"{complex(v):.4g}"
    if isinstance(v, (bool, host_numpy.bool_)):
        return bool(v)
    if isinstance(v, (int, host_numpy.integer)):
        return int(v)
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return float(f"{f:.6g}")


def summarize(value: Any, max_values: int = 8) -> dict[str, Any] | None:
    """An array (or Tensor) as the page shows it: its elements if at most ``max_values``,
    else ``min``, ``max``, ``mean`` and ``norm`` (module docstring).  ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        value = value._data
    a = host_numpy.asarray(to_host(value))
    out: dict[str, Any] = {"shape": list(a.shape), "dtype": a.dtype.name}
    if a.size <= max_values or a.size == 0:  # (an empty array has no statistics: its no elements are written)
        out["values"] = [_number(v) for v in a.reshape(-1)]
        return out
    mag = host_numpy.abs(a) if a.dtype.kind == "c" else a
    if a.dtype.kind == "b":
        mag = a.astype(host_numpy.int64)
    # the mean and norm in double precision: finite values have a finite norm (the sum of squares of
    # float16 or float32 values overflows their own range long before the norm does)
    wide = a.reshape(-1).astype(host_numpy.complex128 if a.dtype.kind == "c" else host_numpy.float64)
    out.update(min=_number(mag.min()), max=_number(mag.max()), mean=_number(wide.mean()),
               norm=_number(host_numpy.linalg.norm(wide)))
    if a.dtype.kind == "c":
        out["of"] = "abs"
    return out


def known_outputs(nodes: list[Node]) -> dict[Node, Any]:
    """An op's output value, where the tape holds it: the node saved it, or a consumer saved
    it as an input (the tape keeps only what backward reads)."""
    outputs: dict[Node, Any] = {}
    for n in nodes:
        if isinstance(n.saved, tuple):
            if n.saved[0] is not None:
                outputs[n] = n.saved[0]
            for e, v in zip(n.inputs, n.saved[1:]):
                if type(e) is Node and v is not None:
                    outputs.setdefault(e, v)
    return outputs


def _attrs(node: Node) -> str:
    """The op's static attributes, short (arrays and long values left out)."""
    parts = []
    for k, v in node.op.attrs.items():
        if hasattr(v, "shape"):
            continue
        text = repr(v)
        parts.append(f"{k}={text if len(text) <= 24 else text[:21] + '...'}")
    return ", ".join(parts)


def _constants(n: Node, max_values: int) -> list[dict[str, Any] | None]:
    """Per input: the summary of a constant input the node saved, else None."""
    if not isinstance(n.saved, tuple):
        return [None] * len(n.inputs)
    return [summarize(v, max_values) if e is None else None for e, v in zip(n.inputs, n.saved[1:])]


class _Tape:
    """The tape before the pass: nodes, leaves and segments under stable page ids."""

    def __init__(self, loss: Tensor, names: dict[int, str], max_values: int) -> None:
        self.nodes = walk(loss)
        self.max_values = max_values
        self.names = names
        self.node_ids = {n: f"n{n.seq}" for n in self.nodes}
        self.leaves: dict[int, Tensor] = {}
        self.leaf_ids: dict[int, str] = {}
        self.values = known_outputs(self.nodes)
        self.values[loss._node] = loss._data
        self.value_at: dict[Node, int] = {}  # the step at which a replay brought the value back
        self.segments: dict[int, Any] = {}
        # the nodes of each outermost segment: a replay recomputes values in its own tree alone, so
        # looking there (not at every checkpointed node) keeps a tape of many segments linear
        self.by_root: dict[Any, list[Node]] = {}
        # constant inputs' values, read now: the pass frees what the nodes saved
        self.constants = {n: _constants(n, max_values) for n in self.nodes}
        self.dropped = {n for n in self.nodes if n.saved is DROPPED}
        for n in self.nodes:
            if n.saved is FREED:
                raise RuntimeError(
                    f"explore: node #{n.seq} ({n.op.name}) was already freed by a backward pass; explore "
                    f"runs backward itself: call it instead of backward(), or backward(retain_graph=True) first")
            if n.segment is not None:
                self.segments.setdefault(n.segment.index, n.segment)
                self.by_root.setdefault(_root(n.segment), []).append(n)
            for e in n.inputs:
                if isinstance(e, Tensor) and id(e) not in self.leaf_ids:
                    self.leaf_ids[id(e)] = f"leaf{len(self.leaf_ids)}"
                    self.leaves[id(e)] = e

    def edge_ref(self, e: Any) -> dict[str, Any]:
        if type(e) is Node:
            return {"kind": "node", "ref": self.node_ids[e]}
        if e is None:
            return {"kind": "constant"}
        return {"kind": "leaf", "ref": self.leaf_ids[id(e)]}

    def catch_replayed_values(self, index: int, segment: Any) -> None:
        """After the replay of ``segment``: the values it recomputed that the tape now holds."""
        for n, v in known_outputs(self.by_root.get(_root(segment), [])).items():
            if n not in self.values:
                self.values[n] = v
                self.value_at[n] = index

    def node_record(self, n: Node, step: int) -> dict[str, Any]:
        return {
            "id": self.node_ids[n], "seq": n.seq, "op": n.op.name, "attrs": _attrs(n),
            "shape": list(n.shape), "dtype": n.dtype.name, "step": step,
            "inputs": [self.edge_ref(e) | ({"value": c} if c is not None else {})
                       for e, c in zip(n.inputs, self.constants[n])],
            "value": summarize(self.values.get(n), self.max_values),
            "value_from_step": self.value_at.get(n),
            "segment": None if n.segment is None else n.segment.index,
            "dropped": n in self.dropped,
        }


def _root(segment: Any) -> Any:
    """The outermost checkpointed segment around ``segment`` (itself, when not nested)."""
    while segment.parent is not None:
        segment = segment.parent
    return segment


def _step_record(tape: _Tape, step: BackwardStep, held: tuple[int, int] | None) -> dict[str, Any]:
    mv = tape.max_values
    return {
        "index": step.index, "op": step.op, "node": tape.node_ids[step.node], "seq": step.node.seq,
        "grad_output": summarize(step.grad_output, mv),
        "grad_inputs": [summarize(g, mv) for g in step.grad_inputs],
        "accumulated": [{"leaf": tape.leaf_ids[id(leaf)], "grad": summarize(g, mv)} for leaf, g in step.accumulated],
        "released_bytes": step.released_bytes,
        "held_saved": None if held is None else held[0],
        "held_grad": None if held is None else held[1],
        "replay": None if step.replay is None else step.replay.index,
    }


def _held_by(n: Node) -> list[Any]:
    """The arrays the ledger counts for ``n`` while the tape holds them: what a tracked forward pass
    holds and backward releases -- the saved arrays but parameters; of values given saved-tensor
    hooks (``node.saved`` is a ``PackedSaved``), only those kept as they are."""
    if type(n.saved) is tuple:
        return saved_arrays(n)
    if type(n.saved) is PackedSaved:
        edges = (None, *n.inputs)  # slot 0 is the output
        return [v for e, (unpack, v) in zip(edges, n.saved.slots)
                if unpack is None and hasattr(v, "nbytes") and not is_parameter_edge(e)]
    return []


@contextlib.contextmanager
def _ledger_for(nodes: list[Node]) -> Iterator[str]:
    """The ledger during the pass: ``"tracked"`` (on already, since the forward pass), ``"counted"``
    (the tape's holdings counted first, as the forward pass would have: in the tracking on now, or in
    one turned on here and put back as it was afterwards) or ``"off"``."""
    untracked = [n for n in nodes if not _ledger.holds_for(n) and _held_by(n)]
    if _ledger.enabled and not untracked:
        yield "tracked"
        return
    if any(n.saved is DROPPED for n in nodes):  # a segment's kept values: counted only by its forward pass
        yield "off"
        return
    if _ledger.enabled:  # turned on after the forward pass: it counts the tape now, as it would have then
        for n in untracked:
            _ledger.hold(_held_by(n), "saved", n)
        yield "counted"
        return
    before = dict(vars(_ledger))  # reset() makes new containers, so these stay as they were
    try:
        with track():
            for n in nodes:
                _ledger.hold(_held_by(n), "saved", n)  # what tape._record holds for each node
            yield "counted"
    finally:
        vars(_ledger).clear()
        vars(_ledger).update(before)


def _held() -> tuple[int, int] | None:
    return (_ledger.live("saved"), _ledger.live("grad")) if _ledger.enabled else None


def record_backward(loss: Tensor, names: dict[int, str] | None = None, retain_graph: bool | None = None,
                    max_values: int = 8) -> dict[str, Any]:
    """Run ``mg.backward_steps(loss)`` to the end and return the explorer's data (module docstring).

    ``names`` maps ``id(leaf tensor)`` to a label (``{id(p): n for n, p in
    model.named_parameters()}``); ``retain_graph`` is passed to the pass.
    """
    if not isinstance(loss, Tensor):
        raise TypeError(f"explore needs a Tensor, got {type(loss).__name__}")
    if loss._node is None:
        raise ValueError("explore needs a tensor with a tape: computed in grad mode from tensors that "
                         "require grad")
    if loss._data.size != 1:  # (backward's own error asks for a gradient=, which explore does not take)
        raise ValueError(f"explore needs a loss of one element, as backward() without a gradient does; got shape "
                         f"{tuple(loss.shape)}: explore y.sum(), or (y * v).sum() for what backward(gradient=v) "
                         f"would do")
    _check_options(names, max_values)
    tape = _Tape(loss, names or {}, max_values)
    steps: list[dict[str, Any]] = []
    step_of: dict[Node, int] = {}
    with _ledger_for(tape.nodes) as ledger_source:
        held_before = _held()
        for step in backward_steps(loss, retain_graph=retain_graph):
            step_of[step.node] = step.index
            if step.replay is not None:
                tape.catch_replayed_values(step.index, step.replay)
            steps.append(_step_record(tape, step, _held()))
    return {
        "format": "minigrad-ckpt tape explorer", "version": 1,
        "output": tape.node_ids[loss._node],
        "nodes": [tape.node_record(n, step_of[n]) for n in tape.nodes],
        "leaves": _leaf_records(tape, steps),
        "segments": _segment_records(tape, steps),
        "steps": steps,
        "ledger": {"source": ledger_source,
                   "held_saved": None if held_before is None else held_before[0],
                   "held_grad": None if held_before is None else held_before[1]},
    }


def _check_options(names: Any, max_values: Any) -> None:
    """The options, checked before the pass runs (a wrong one found after it would leave it half shown)."""
    if names is not None and not isinstance(names, Mapping):
        raise TypeError(f"explore: names must map id(leaf) to a label ({{id(p): name for name, p in "
                        f"model.named_parameters()}}), got {type(names).__name__}")
    if isinstance(max_values, bool) or not isinstance(max_values, numbers.Integral) or max_values < 0:
        raise ValueError(f"explore: max_values must be a whole number >= 0 (arrays of at most that many elements "
                         f"are written out), got {max_values!r}")


def _leaf_records(tape: _Tape, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    steps_of: dict[str, list[int]] = {}  # leaf id -> the steps that gave it a gradient, each once
    for s in steps:
        for lid in dict.fromkeys(a["leaf"] for a in s["accumulated"]):
            steps_of.setdefault(lid, []).append(s["index"])
    out = []
    for key, t in tape.leaves.items():
        lid = tape.leaf_ids[key]
        out.append({"id": lid, "name": str(tape.names.get(key, "leaf")), "shape": list(t.shape), "dtype": t.dtype.name,
                    "value": summarize(t._data, tape.max_values),
                    "grad": summarize(None if t.grad is None else t.grad._data, tape.max_values),
                    "steps": steps_of.get(lid, [])})
    return out


def _segment_records(tape: _Tape, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    nodes_of: dict[int, list[str]] = {}
    for n in tape.nodes:
        if n.segment is not None:
            nodes_of.setdefault(n.segment.index, []).append(tape.node_ids[n])
    replays: dict[int, list[int]] = {}
    for s in steps:
        if s["replay"] is not None:
            replays.setdefault(s["replay"], []).append(s["index"])
    return [{"index": seg.index, "label": seg.label, "nodes": nodes_of.get(seg.index, []),
             "replayed_at": replays.get(seg.index, [])} for _, seg in sorted(tape.segments.items())]
