"""Profiling: one measured forward pass turns a chain of layers into a :class:`ChainProfile`.

:func:`profile_chain` runs the layers under a recorder that tags each node with
its layer, then classifies every array a node saved or read: the layer's input
or output boundary, an internal array, or a constant from outside.  Sizes are
exact bytes of the underlying buffers (views share their base), times the best
of ``repeats`` runs.  Profiling leaves no trace (:func:`leaving_no_trace`): the
random generator is put back, and so is every tensor written in place while
the model ran (BatchNorm's running statistics).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..grad_mode import enable_grad, set_recorder
from ..grad_mode import state as _grad_state
from ..memory import _base, is_parameter_edge, saved_arrays
from ..no_trace import leaving_no_trace
from ..tape import FREED
from ..tensor import Tensor
from .model import ChainProfile, LayerProfile

__all__ = ["profile_chain"]


LAYER_INPUT = object()  # an input of a node that is its layer's input, where no node made it


class _Profiler:
    """Recorder used during profiling: tags each node with its layer, keeps saved values."""

    def __init__(self) -> None:
        self.layer = -1
        self.layer_input: Any = None  # the tensor the current layer was called on
        self.nodes: list[list[Any]] = []
        self.consumed: list[list[tuple[Any, bool, Any]]] = []
        # id(node) -> the nodes that made its inputs (LAYER_INPUT: the layer's input, made by none)
        self.sources: dict[int, list[Any]] = {}
        self.slots: dict[int, tuple[bool, ...]] = {}
        self.outputs: list[Any] = []  # the node that made each layer's output
        self.seconds: list[list[float]] = []     # per layer, each node's time since the one before
        self.mark = 0.0

    def start_layer(self, layer_input: Any) -> None:
        self.layer += 1
        self.layer_input = layer_input
        self.nodes.append([])
        self.consumed.append([])
        self.seconds.append([])
        self.mark = time.perf_counter()

    def record(self, node: Any, args: tuple, arrays: list, out: Any, tensor: Any = None) -> None:
        now = time.perf_counter()
        self.seconds[self.layer].append(now - self.mark)
        self.mark = now
        self.nodes[self.layer].append(node)
        self.sources[id(node)] = [a._node if isinstance(a, Tensor) and a._node is not None
                                  else LAYER_INPUT if a is self.layer_input else None for a in args]
        self.slots[id(node)] = tuple(v is not None for v in node.saved)  # which of (out, *inputs) it saves
        for a, v in zip(args, arrays):
            if not hasattr(v, "nbytes"):
                continue
            is_param = isinstance(a, Tensor) and (a._requires_grad if a._node is None else is_parameter_edge(a._node))
            producer = a._node if isinstance(a, Tensor) else None
            self.consumed[self.layer].append((v, is_param, producer))


def profile_chain(layers: Sequence[Callable[[Any], Any]], x: Any, repeats: int = 2) -> ChainProfile:
    """Run ``layers`` on ``x`` and measure what each holds (bytes) and costs (seconds)."""
    times = [math.inf] * len(layers)
    # The layers may draw random keys (dropout) and update running statistics (BatchNorm):
    # profiling is not a training step, so planning leaves no trace in the results.
    with leaving_no_trace():
        profile = _profile_runs(layers, x, repeats, times)
    for lp, t in zip(profile.layers, times):
        lp.forward_seconds = t
    return profile


def _profile_runs(layers: Sequence[Callable[[Any], Any]], x: Any, repeats: int, times: list[float]) -> ChainProfile:
    profile = None
    node_seconds: list[list[float]] | None = None
    for _ in range(max(1, repeats)):
        prof = _Profiler()
        outer = _grad_state.recorder
        if outer is not None:
            raise RuntimeError("profile_chain cannot run inside a checkpointed segment")
        boundaries = [_boundary(x)]
        with enable_grad():
            set_recorder(prof)
            try:
                h = x
                for i, layer in enumerate(layers):
                    prof.start_layer(h)
                    t0 = time.perf_counter()
                    h = layer(h)
                    times[i] = min(times[i], time.perf_counter() - t0)
                    if not isinstance(h, Tensor):  # the cost model's boundaries are one array each
                        raise TypeError(
                            f"profile_chain: layer {i} ({type(layer).__name__}) returned a {type(h).__name__}, not a "
                            f"Tensor: a profiled chain passes one tensor from layer to layer (run_plan and "
                            f"checkpoint_sequential take other values; plan_graph profiles any function)")
                    boundaries.append(_boundary(h))
                    prof.outputs.append(getattr(h, "_node", None))
            finally:
                set_recorder(outer)
        if node_seconds is None or [len(t) for t in node_seconds] != [len(t) for t in prof.seconds]:
            node_seconds = prof.seconds
        else:  # the best of the runs, node by node
            node_seconds = [[min(a, b) for a, b in zip(u, v)] for u, v in zip(node_seconds, prof.seconds)]
        if profile is None:
            profile, first = _classify(prof, boundaries), prof
    inputs = [getattr(x, "_node", None)] + first.outputs[:-1]  # the node that made each layer's input
    recorded_any = False
    for lp, nodes, secs, out, into in zip(profile.layers, first.nodes, node_seconds, first.outputs, inputs):
        lp.recorded = bool(nodes)
        recorded_any = recorded_any or lp.recorded
        lp.cuts = recorded_any and out is None  # (its output has no history: see LayerProfile.cuts)
        if len(secs) != len(nodes):
            continue
        lp.own_seconds, lp.own_wants_input = _partial_replay(first, nodes, secs, None, into)
        if lp.keeps_output:
            lp.kept_output_seconds, lp.kept_wants_input = _partial_replay(first, nodes, secs, out, into)
    return profile


def _boundary(t: Any) -> tuple[Any, bool]:
    """A layer's output (or the chain's input) as it is when the layer returns: its array, and
    whether it is a parameter (a leaf that requires grad: not counted, as in the ledger).  Taken
    then, not after the run: a later layer that writes it in place (``relu(h, inplace=True)``)
    gives the tensor a new array and history, and this layer's output is still the old one."""
    if not isinstance(t, Tensor):
        return t, False
    return t._data, (t._requires_grad if t._node is None else is_parameter_edge(t._node))


def _partial_replay(prof: _Profiler, nodes: list[Any], seconds: list[float], kept: Any,
                    into: Any) -> tuple[float, bool]:
    """``(seconds, wants its input)`` of the layer's nodes a replay runs where nothing after the
    layer reads its output: those whose outputs its nodes save, and what they are computed
    from, but not ``kept`` (the node that made the layer's output, where the block keeps it)
    -- the rule ``Segment._demand`` follows, inside one layer.  The input is wanted where a
    node that runs reads ``into`` (the node that made it; a leaf is ``LAYER_INPUT``), or one saves it."""
    mine = {id(n): i for i, n in enumerate(nodes)}
    wanted = [False] * len(nodes)
    total, wants_input = 0.0, False
    for i in range(len(nodes) - 1, -1, -1):
        n = nodes[i]
        slots = prof.slots[id(n)]
        if slots[0]:
            wanted[i] = True
        running = wanted[i] and n is not kept
        total += seconds[i] if running else 0.0
        for j, src in enumerate(prof.sources[id(n)]):
            if src is None or not (running or (j + 1 < len(slots) and slots[j + 1])):
                continue
            if id(src) in mine:
                wanted[mine[id(src)]] = True
            elif src is into or src is LAYER_INPUT:
                wants_input = True
    return total, wants_input


def _classify(prof: _Profiler, boundaries: list[tuple[Any, bool]]) -> ChainProfile:
    keys: dict[int, int] = {}

    def key(a: Any) -> int:
        return keys.setdefault(id(_base(a)), len(keys))

    bkeys = []
    bbytes: dict[int, int] = {}
    for arr, param in boundaries:
        k = key(arr)
        bkeys.append(k)
        bbytes[k] = 0 if param else int(_base(arr).nbytes)
    layers = []
    # the nodes whose op saves its own output (not a view): what Segment.keep_result keeps
    saves_own = {id(n) for nodes in prof.nodes for n in nodes
                 if not n.op.is_view and type(n.saved) is tuple and n.saved[0] is not None}
    for i, nodes in enumerate(prof.nodes):
        in_k, out_k = bkeys[i], bkeys[i + 1]
        mine = set(map(id, nodes))
        produced = {key(n.saved[0]) for n in nodes if n.saved[0] is not None}
        lp = LayerProfile(in_k, out_k, {in_k: bbytes[in_k], out_k: bbytes[out_k]}, False, False)
        for n in nodes:
            for arr in saved_arrays(n):
                k = key(arr)
                if k == in_k:
                    lp.saves_input = True
                elif k == out_k:
                    lp.saves_output = True
                else:
                    lp.local_saved[k] = int(_base(arr).nbytes)
        for arr, is_param, producer in prof.consumed[i]:
            k = key(arr)
            if is_param or k == in_k or (producer is not None and id(producer) in mine) or k in produced:
                continue
            lp.local_external[k] = int(_base(arr).nbytes)
        lp.keeps_output = id(prof.outputs[i]) in saves_own
        for n in nodes:  # values no longer needed: the profile keeps only sizes
            n.saved = FREED
        layers.append(lp)
    return ChainProfile(layers)
