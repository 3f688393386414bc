"""Checkpointing beyond chains: the tape is the graph.

``remat(fn, policy=...)`` runs ``fn`` as one checkpointed segment in which a
*policy* says, node by node, which outputs to keep from the forward pass.  In
backward the segment replays once, and only what is wanted and not kept: a
kept output is taken as it is, and the ops before it run only if some other
value needs them.  So a policy trades the bytes it keeps for the recompute it
saves, on any graph -- residual connections, attention, U-Nets -- as JAX's
``jax.checkpoint(policy=...)`` and PyTorch's selective checkpointing do.

* ``save_nothing``: keep nothing but the inputs (plain ``checkpoint``);
* ``save_everything``: keep every output (nothing is recomputed);
* ``save_matmuls``: keep the outputs of matmul, linear, convolution and
  einsum ops -- the expensive ones -- and recompute the rest (JAX's
  ``dots_saveable``);
* ``save_names("a", ...)`` with ``name(tensor, "a")`` inside ``fn``;
* any callable ``policy(node) -> bool``;
* ``plan_graph(fn, *args, budget_bytes=...)``: the policy with the least
  recompute time whose predicted peak fits the budget (a :class:`GraphPlan`);
* ``offload_to_host(policy)``: what ``policy`` keeps goes to host memory and
  comes back when the replay wants it; the ledger counts it as ``"host"``.

The memory a remat region holds, in the ledger's terms: from its forward pass
to its backward, its inputs and constants ``K`` and its kept outputs ``C``;
at its replay, on top, every saved value ``S`` of its nodes.  A kept output
that its node saves anyway (``tanh`` saves its output) is free at the replay;
one that nothing saves (a matmul's output, read by an add) costs its bytes.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..grad_mode import is_grad_enabled
from ..memory import _base
from ..memory import ledger as _ledger
from ..no_trace import leaving_no_trace
from ..tape import Node
from . import stale_writes
from .plans import InfeasibleBudgetError, budget_in_bytes
from .policy import DEFAULT_STATISTICS
from .segment import CheckpointError, Segment, _weak

__all__ = ["remat", "save_nothing", "save_everything", "save_matmuls", "save_names", "name", "offload_to_host",
           "plan_graph", "GraphPlan", "MATMUL_OPS"]

#: The ops ``save_matmuls`` keeps: products of matrices, the expensive part of a model.
MATMUL_OPS = frozenset({"MatMul", "Linear", "Conv2d", "Einsum"})


def save_nothing(node: Node) -> bool:
    """Keep no output: everything is recomputed (``checkpoint``'s behaviour)."""
    return False


def save_everything(node: Node) -> bool:
    """Keep every output: nothing is recomputed (and nothing saved)."""
    return True


def save_matmuls(node: Node) -> bool:
    """Keep the outputs of matmul, linear, convolution and einsum ops; recompute the rest."""
    return node.op.name in MATMUL_OPS


class save_names:  # noqa: N801 -- a policy, named as the others (and JAX's) are
    """Keep the outputs tagged with one of ``names`` by :func:`name` inside the function."""

    def __init__(self, *names: str) -> None:
        self.names = frozenset(names)

    def __call__(self, node: Node) -> bool:
        return bool(getattr(node, "remat_names", frozenset()) & self.names)

    def __repr__(self) -> str:
        return f"save_names({', '.join(map(repr, sorted(self.names)))})"


def name(tensor: Any, label: str) -> Any:
    """Tag ``tensor`` (computed inside a remat'ed function) as ``label``, for ``save_names``.
    Returns ``tensor``; a tensor no op produced (an input, a constant) has nothing to tag."""
    node = getattr(tensor, "_node", None)
    if node is not None:
        node.remat_names = getattr(node, "remat_names", frozenset()) | {label}
        seg = node.segment  # the node was recorded before its name: ask the policy again
        if seg is not None and seg.keep is not None and node not in seg._kept_outputs and seg.keeps(node):
            seg._keep_output(node, tensor._data)
            seg.note_tensor_of(node, tensor)
    return tensor


class offload_to_host:  # noqa: N801 -- wraps a policy, used like one
    """``policy``, with what it keeps held in host memory until the replay wants it.

    The ledger counts the host copies apart (``mg.memory.live("host")``,
    ``peak("host")``); device memory no longer holds them between the forward
    pass and the replay.
    """

    to_host = True

    def __init__(self, policy: Callable[[Node], bool]) -> None:
        if not callable(policy):
            raise TypeError(f"offload_to_host needs a policy (a callable on nodes), got {type(policy).__name__}")
        self.policy = policy

    def __call__(self, node: Node) -> Any:
        return self.policy(node)  # its truth value: the segment asks for it

    def __repr__(self) -> str:
        return f"offload_to_host({getattr(self.policy, '__name__', self.policy)!r})"


def remat(fn: Callable[..., Any], policy: Callable[[Node], bool] = save_nothing) -> Callable[..., Any]:
    """``fn``, run as a checkpointed segment that keeps the outputs ``policy`` selects.

    The result is bitwise what ``fn`` gives without checkpointing (replay runs
    the recorded ops, random ones from their recorded keys), gradients too.
    """
    if not callable(fn):
        raise TypeError(f"remat needs a function to run, got {type(fn).__name__}")
    if not callable(policy):
        raise TypeError(f"policy must be a callable policy(node) -> bool, got {type(policy).__name__}")
    label = getattr(fn, "__qualname__", None) or type(fn).__name__

    def run(*args: Any, **kwargs: Any) -> Any:
        if not is_grad_enabled():
            return fn(*args, **kwargs)
        keep = None if policy is save_nothing else policy
        # (the arguments tell a GraphPlan which nodes a transform's requiring grad of them adds)
        arguments = None if keep is None else (args, kwargs)
        with Segment(stats=DEFAULT_STATISTICS, label=label, keep=keep, arguments=arguments) as seg:
            out = fn(*args, **kwargs)
        return seg.returned(out)

    run.__name__ = f"remat({label})"
    run.__wrapped__ = fn  # type: ignore[attr-defined]
    return run


# ---------------------------------------------------------------- planning on the graph
@dataclass
class GraphPlan:
    """A policy naming, by recording position, the node outputs a remat region keeps.

    ``predicted_peak_bytes`` is what the ledger measures for a step that runs
    ``remat(fn, policy=plan)`` and backward from its result;
    ``recompute_seconds`` the measured forward time of the ops its replay runs.

    Under ``mg.func`` transforms the region records more than the planned step: the
    ops forward mode runs to push tangents (``jvp``, ``jacfwd``, ``hessian``), and
    those only the arguments' requiring grad records (``grad``, ``vjp``, ``jacrev``
    make them require grad).  ``keys`` names each planned node by what it reads --
    the arguments alone or not -- and its place among those so classed, which those
    additions leave alone; nodes the plan does not name are recomputed.
    """

    keep_positions: frozenset[int]
    ops: tuple[str, ...]
    predicted_peak_bytes: int
    recompute_seconds: float
    budget_bytes: int | None = None
    names: tuple[str, ...] = field(default=(), repr=False)
    # each position's node as a transform finds it (``Segment._remat_key``); empty: by position alone
    keys: tuple[tuple[bool, int] | None, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        self._by_key = {k: p for p, k in enumerate(self.keys) if k is not None}
        self._from_arguments = any(k is not None and k[0] for k in self.keys)

    def __call__(self, node: Node) -> bool:
        pos = getattr(node, "remat_position", None)
        if self.keys:
            key = getattr(node, "remat_key", None)
            if key is None or (key[0] and not self._from_arguments):
                # a tangent's op (forward mode's own work), or one only the arguments' requiring grad
                # records where they did not when planned (mg.func.grad): not the plan's, recomputed
                return False
            pos = self._by_key.get(key, len(self.ops))
        if pos is None or pos >= len(self.ops) or self.ops[pos] != node.op.name:
            raise CheckpointError(
                f"this GraphPlan was made for a function that records {len(self.ops)} ops; node #{node.seq} "
                f"({node.op.name}) at position {pos} does not match: plan again for this function and input")
        return pos in self.keep_positions

    def describe(self) -> str:
        kept = ", ".join(f"{p}:{self.ops[p]}" for p in sorted(self.keep_positions)) or "nothing"
        return (f"GraphPlan(keep {kept}; predicted peak {self.predicted_peak_bytes:,} B, "
                f"recompute {self.recompute_seconds * 1e3:.3f} ms)")


class _GraphModel:
    """A profiled remat region: per node its op's time, what it saves, where its inputs
    come from, and the buffer its output lives in (a view's is its input's)."""

    def __init__(self, seg: Segment, outputs: dict[Node, Any], ops: tuple[str, ...]) -> None:
        # The nodes of checkpoints nested in ``fn`` too: the region's replay runs those an op of
        # its own reads, and no policy is asked about them (they always run); their saved values
        # are filled by their own replays, later (see _phases).
        nodes = sorted(seg._all_nodes(), key=lambda n: n.seq)
        index = {n: i for i, n in enumerate(nodes)}
        self.n = len(nodes)
        self.ops = ops  # what GraphPlan's positions name: the region's nodes as recorded
        self.position = [n.remat_position if n.segment is seg else None for n in nodes]
        self.srcs: list[list[int | None]] = []
        self.slots: list[tuple[bool, ...]] = [n.saved_slots for n in nodes]
        self.buf: list[Any] = []
        self.sizes: dict[Any, int] = {}
        self.t: list[float] = []
        in_bufs_of: list[list[Any]] = []
        kept_bufs: set[Any] = set()
        for i, n in enumerate(nodes):
            srcs, in_bufs = [], []
            for src in n.replay:
                if type(src) is Node:
                    srcs.append(index[src])
                    in_bufs.append(self.buf[index[src]])
                else:
                    srcs.append(None)
                    key = ("k", id(_base(src.value))) if hasattr(src.value, "nbytes") and not src.param else None
                    if key is not None:
                        self.sizes[key] = int(_base(src.value).nbytes)
                        kept_bufs.add(key)
                    in_bufs.append(key)
            self.srcs.append(srcs)
            own = ("n", i)
            # a view lives in its input's buffer (None: a parameter's, which the ledger never counts) --
            # if it is one: a view op's output can be a copy (``reshape`` of a column-major array), its own
            # memory, except behind a parameter, whose view ops' outputs the ledger never counts, copies or not
            first = (outputs[nodes[srcs[0]]] if srcs[0] is not None else n.replay[0].value) if srcs else None
            shares = n.op.is_view and in_bufs and (in_bufs[0] is None or _base(outputs[n]) is _base(first))
            self.buf.append(in_bufs[0] if shares else own)
            self.sizes.setdefault(own, int(_base(outputs[n]).nbytes))
            self.t.append(_time_forward(n, [outputs[nodes[s]] if s is not None else src.value
                                            for s, src in zip(srcs, n.replay)]))
            in_bufs_of.append(in_bufs)
        self.K = kept_bufs
        # nodes a replay runs even when their output is kept (Segment.runs_anyway): a custom
        # function whose backward reads intermediates only its forward rebuilds, and a node whose
        # output was written in place while the function ran
        must_run = {i for i, n in enumerate(nodes) if n.segment is not seg or seg.runs_anyway(n)}
        # and the views of their outputs are not kept either: a kept view would hold the forward
        # pass's buffer beside the new one the node's replay makes, which the model counts once
        self.must_run = {i for i in range(self.n) if i in must_run or
                         (self.buf[i] is not None and self.buf[i][0] == "n" and self.buf[i][1] in must_run)}
        # what the checkpoints nested in it keep by their own policies (``remat(g, save_matmuls)``
        # inside ``fn``): no replay runs those nodes, and their outputs are held from the forward
        # pass until that checkpoint's backward is over
        self.nested_kept = {index[n] for n in nodes if n.segment is not seg and n.segment._takes_kept(n)}
        self.nested_held = {i for i in self.nested_kept  # (a host copy is not the device's memory)
                            if not getattr(nodes[i].segment.keep, "to_host", False)}
        self.segment_of = [n.segment for n in nodes]
        self.phases = self._phases(seg, index, in_bufs_of)
        # what the forward pass holds as ``fn`` returns, before the region lets go of the branches
        # it dropped (they read kept values too) -- whatever the policy keeps (see _profile)
        self.forward_bytes = 0

    def _saved_bufs(self, indices: Any, in_bufs_of: list[list[Any]]) -> set[Any]:
        """The buffers the saved slots of the nodes ``indices`` hold once replayed."""
        out = set()
        for i in indices:
            if self.slots[i][0]:
                out.add(self.buf[i])
            out.update(b for b, saved in zip(in_bufs_of[i], self.slots[i][1:]) if saved and b is not None)
        return out

    def _phases(self, seg: Segment, index: dict[Node, int], in_bufs_of: list[list[Any]]) -> list[set[Any]]:
        """The buffers held, beyond the region's kept values, at each replay of ``seg`` and of the
        checkpoints nested in it, in the order the backward pass runs them.

        The pass takes nodes newest first, and a segment replays when it reaches one of its own
        nodes (``_replay_times``).  A replay fills its own nodes' saved values and hands each nested
        checkpoint the values it replays from (its boundary, held until that checkpoint's backward is
        over).  So at a replay the ledger holds: what the segments that replayed before it (or that
        it replays through) still hold -- their nodes older than this moment, their boundaries to the
        checkpoints not yet over -- its own saved values and boundaries, and the outputs the
        checkpoints not yet over keep by their own policies (held from the forward pass).  A nested
        checkpoint that reads nothing its region computes replays on its own: where the function
        returns its result, its backward comes first and is over before the region replays."""
        tree = [seg, *seg._descendants()]
        members = {s: {index[n] for n in s._all_nodes()} for s in tree}
        own = {s: [index[n] for n in s.nodes] for s in tree}
        kids = {s: [c for c in s.children if members[c]] for s in tree}
        bound = {c: {self.buf[j] for i in members[c] for j in self.srcs[i] if j is not None and j not in members[c]}
                 - {None} for s in tree for c in kids[s]}
        # a nested checkpoint that reads a node outside it (a parameter's view too) asks the segment around
        # it to replay first, for the values it replays from
        reads_out = {c: any(j is not None and j not in members[c] for i in members[c] for j in self.srcs[i])
                     for c in bound}
        when = self._replay_times(seg, own, kids, reads_out)
        ancestors = {seg: set()}
        for s in tree:
            for c in kids[s]:
                ancestors[c] = ancestors[s] | {s}
        phases = []
        for s, t in when.items():
            held: set[Any] = set()
            for p, tp in when.items():  # the segments whose replay has run and whose backward is not over
                if not (p is s or tp > t or (tp == t and p in ancestors[s])) or min(members[p]) > t:
                    continue
                held |= self._saved_bufs(own[p] if p is s else [i for i in own[p] if i < t], in_bufs_of)
                held = held.union(*(bound[c] for c in kids[p] if min(members[c]) <= t))
            # a nested checkpoint's kept outputs go when its backward is over
            held |= {self.buf[i] for i in self.nested_held if min(members[self.segment_of[i]]) <= t} - {None}
            phases.append(held)
        return phases or [set()]

    @staticmethod
    def _replay_times(seg: Segment, own: dict, kids: dict, reads_out: dict) -> dict[Segment, int]:
        """When each segment of the tree replays: the newest of its own nodes, or of a nested
        checkpoint's replay that needs values it computes (which asks it to replay first); a
        segment that records no node of its own and whose nested checkpoints read only kept
        values never replays (absent)."""
        when: dict[Segment, int] = {}

        def visit(s: Segment) -> int:
            times = list(own[s])
            for c in kids[s]:
                tc = visit(c)
                if reads_out[c] and tc >= 0:
                    times.append(tc)
            if times:
                when[s] = max(times)
            return when.get(s, -1)

        visit(seg)
        return when

    def run_set(self, kept: set[int]) -> list[int]:
        """The nodes a replay runs when the outputs of ``kept`` are kept (back to front)."""
        return self._demand(kept)[0]

    def _demand(self, kept: set[int]) -> tuple[list[int], list[bool]]:
        """The nodes a replay runs, and whose outputs it wants (run or kept)."""
        wanted = [False] * self.n
        run = []
        for i in range(self.n - 1, -1, -1):
            if self.slots[i][0]:
                wanted[i] = True
            running = wanted[i] and i not in kept and i not in self.nested_kept
            if running:
                run.append(i)
            for j, s in enumerate(self.srcs[i]):
                if s is not None and (running or (j + 1 < len(self.slots[i]) and self.slots[i][j + 1])):
                    wanted[s] = True
        return run, wanted

    def seconds(self, kept: set[int]) -> float:
        return sum(self.t[i] for i in self.run_set(kept))

    def peak(self, kept: set[int]) -> int:
        wanted = self._demand(kept)[1]  # a kept output nothing wants is let go (Segment)
        held = self.K | {self.buf[i] for i in kept if wanted[i]}
        backward = max(sum(self.sizes[b] for b in held | phase if b is not None) for phase in self.phases)
        return max(backward, self.forward_bytes)  # (what the forward pass holds is the policy's alone)


def _time_forward(n: Node, ins: list[Any], repeats: int = 2) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        n.op.forward(n.xp, *ins)
        best = min(best, time.perf_counter() - t0)
    return best


def _profile(fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> _GraphModel:
    """Run ``fn`` once as a remat region and measure it; leaves no trace (generator, ledger,
    tensors written in place)."""
    weak_outputs: dict[Node, Any] = {}

    def watch(node: Node) -> bool:
        return False

    was = _ledger.enabled
    _ledger.enabled = False
    try:
        seg = Segment(label="plan_graph", keep=watch, arguments=(args, kwargs))
        record = seg.record
        recorded: list[Node] = []  # the region's own nodes, by recording position, as GraphPlan names them

        def record_keeping_outputs(node: Node, a: tuple, arrays: list, out: Any, tensor: Any = None) -> None:
            record(node, a, arrays, out, tensor)
            recorded.append(node)
            # (weakly: held, a view's array would keep alive the memory it views -- an output of a checkpoint
            # nested in fn, whose memory tells whether it is alive -- where a run lets a dropped branch go)
            weak_outputs[node] = _weak(out)

        seg.record = record_keeping_outputs  # type: ignore[method-assign]
        forward_held: dict[int, int] = {}
        drop_unreachable = seg.drop_unreachable

        def measure_then_drop(alive: set[Node]) -> None:
            forward_held.update(_held_in_the_forward_pass(seg))
            drop_unreachable(alive)

        seg.drop_unreachable = measure_then_drop  # type: ignore[method-assign]
        with leaving_no_trace(), seg:  # BatchNorm's running statistics are put back, too
            result = fn(*args, **kwargs)
        # closing, the segment let go what a run lets go when fn returns: the nodes no live tensor
        # reaches -- ``result`` holds what fn returned, whatever object it is (see drop_unreachable).
        # The others are held here (the tree holds its nodes weakly): the model reads them all
        nodes = seg._all_nodes()  # noqa: F841
        del result
        stale_writes.unwatch(seg)  # a measurement: no backward will replay it
        ops = tuple(n.op.name for n in recorded)
        keys = tuple(n.remat_key for n in recorded)  # ... and as a transform finds them
        outputs = {n: out for n, ref in weak_outputs.items() if (out := ref()) is not None}
        with leaving_no_trace():  # (a custom Function's forward, run again, may draw from the generator)
            _replay_missing_outputs(seg, outputs)
        model = _GraphModel(seg, outputs, ops)
        model.keys = keys
        model.forward_bytes = sum(forward_held.values())
        return model
    finally:
        _ledger.enabled = was


def _held_in_the_forward_pass(seg: Segment) -> dict[int, int]:
    """The buffers (by id, with their bytes) the ledger holds for the region ``seg`` as its function
    returns, before it lets go of what that function dropped: every value the tree keeps to replay
    from -- a dead branch's too -- and what the checkpoints nested in it keep by their own policies
    (held from their own return).  None is let go before, so this is the forward pass's peak."""
    held: dict[int, int] = {}
    for s in [seg, *seg._descendants()]:
        arrays = [k.value for k in s.kept if not k.param and hasattr(k.value, "nbytes")]
        if s._outputs_held:
            arrays += [v for _, v in s._device_kept_outputs()]
        for a in arrays:
            held[id(_base(a))] = int(_base(a).nbytes)
    return held


def _replay_missing_outputs(seg: Segment, outputs: dict[Node, Any]) -> None:
    """The outputs of the tree's nodes that ``outputs`` lacks -- those the function let go, and those
    the segments nested in ``seg`` recorded (their own ``record`` ran, not the profile's) -- as a
    replay makes them: from the values it kept, in tape order."""
    for n in sorted(seg._all_nodes(), key=lambda n: n.seq):
        if n not in outputs:
            ins = [outputs[src] if type(src) is Node else src.value for src in n.replay]
            outputs[n] = n.xp.as_array(n.op.forward(n.xp, *ins))


def plan_graph(fn: Callable[..., Any], *args: Any, budget_bytes: int, exact_up_to: int = 16,
               **kwargs: Any) -> GraphPlan:
    """Profile ``fn(*args, **kwargs)`` once and return the :class:`GraphPlan` with the least
    recompute time whose predicted peak fits ``budget_bytes``.

    Keeping an output never makes the replay run more, so every output that
    costs no bytes at the replay (its node saves it anyway) is kept.  The rest
    are a choice: every subset is weighed when at most ``exact_up_to`` outputs
    would save time (exact), otherwise they are taken greedily by the time
    they save per byte.  :class:`InfeasibleBudgetError` if even keeping nothing
    does not fit, with that smallest feasible budget.
    """
    if not is_grad_enabled():
        raise RuntimeError("plan_graph profiles a training step: call it with gradients enabled")
    model = _profile(fn, args, kwargs)
    budget = budget_in_bytes(budget_bytes, "plan_graph")
    smallest = model.peak(set())
    if smallest > budget:
        raise InfeasibleBudgetError(budget, smallest)
    candidates = [i for i in model.run_set(set()) if i not in model.must_run]
    # (costs nothing: held anyway from the forward pass, or whenever a replay holds the most)
    free = {i for i in candidates if model.buf[i] is None or model.buf[i] in model.K
            or all(model.buf[i] in phase for phase in model.phases)}
    costly = [i for i in candidates if i not in free]
    kept = (_best_subset if len(costly) <= exact_up_to else _greedy)(model, free, costly, budget)
    positions = frozenset(model.position[i] for i in kept)  # (a nested node is never a candidate)
    return GraphPlan(positions, model.ops, model.peak(kept), model.seconds(kept), budget, keys=model.keys)


def _best_subset(model: _GraphModel, free: set[int], costly: list[int], budget: int) -> set[int]:
    best, best_key = set(free), (model.seconds(free), model.peak(free))
    for r in range(1, len(costly) + 1):
        for extra in itertools.combinations(costly, r):
            kept = free | set(extra)
            if model.peak(kept) > budget:
                continue
            key = (model.seconds(kept), model.peak(kept))
            if key < best_key:
                best, best_key = kept, key
    return best


def _greedy(model: _GraphModel, free: set[int], costly: list[int], budget: int, passes: int = 3) -> set[int]:
    """Keep the costly outputs by the time they save per byte, each while the peak stays within
    ``budget``.  The peak is the largest of the phases' totals (what is held with each replay,
    see _GraphModel._phases), kept per phase: an output costs its bytes in the phases whose replay
    does not hold its buffer anyway -- a look per phase, where weighing each candidate with
    ``model.peak`` walked the whole graph (cubic on a tape with nested checkpoints: 2,000 nodes
    took 18 s).  Keeping an output may let other kept outputs go (what fed it need not run), which
    the totals do not see until the next pass measures them again: they never fall short of the
    true peak, so the plan fits the budget, and a later pass takes what the freed bytes allow."""
    kept = set(free)
    order = sorted(costly, key=lambda i: -model.t[i] / max(model.sizes.get(model.buf[i], 0), 1))
    for _ in range(passes):
        wanted = model._demand(kept)[1]  # (a kept output nothing wants is let go: model.peak)
        held = model.K | {model.buf[i] for i in kept if wanted[i]}
        totals = [sum(model.sizes[b] for b in held | phase if b is not None) for phase in model.phases]
        took = False
        for i in order:
            b = model.buf[i]
            if i in kept:
                continue
            if b is None or b in held or not wanted[i]:  # (costs nothing: held anyway, or let go)
                kept.add(i)
                continue
            grown = [t if b in phase else t + model.sizes[b] for t, phase in zip(totals, model.phases)]
            if max(grown) <= budget:
                kept.add(i)
                held.add(b)
                totals, took = grown, True
        if not took:
            break
    return kept
