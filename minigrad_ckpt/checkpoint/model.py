"""The memory model of a checkpointed chain, and the dynamic programs that plan with it.

The model (what the ledger in :mod:`minigrad_ckpt.memory` counts):

* a plain layer ``i`` holds ``S_i``: the arrays its nodes saved -- its own
  internal arrays, and possibly its input ``b[i-1]`` and output ``b[i]``;
* a checkpointed block ``[s..e]`` holds ``K``: its input ``b[s-1]`` plus the
  constants its layers read from outside;
* backward walks blocks in reverse.  A plain layer only releases.  A
  checkpointed block first replays: for a moment it holds ``K`` and every
  ``S_i`` of its layers.  Then it releases them, and its ``K`` too.

So the peak is the larger of the end of the forward pass (everything every
block holds) and, for each checkpointed block ``j``, what the blocks before
it hold plus ``j``'s replayed arrays.  Arrays are items with byte sizes; an
array held twice is counted once, as the ledger does.

:func:`simulate_peak` evaluates the model for any plan; :func:`pareto_plans`
finds every plan that is optimal in (peak, recompute time);
:func:`plan_for_budget` the cheapest one under a byte budget and
:func:`min_peak_bytes` the smallest peak any plan reaches.  All three walk the
same states and transitions (:class:`_Transitions`) with explicit loops --
nothing recurses per layer, so chains of any length plan.
:func:`brute_force_plans` enumerates all plans of a short chain: the test oracle.
"""

from __future__ import annotations

import gc
import itertools
import math
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..backend import host_numpy as np
from .plans import Block, InfeasibleBudgetError, Plan, budget_in_bytes, check_covers, moved

__all__ = [
    "LayerProfile", "ChainProfile", "simulate_peak", "plan_cost", "pareto_plans", "flat_plan_for_budget",
    "flat_min_peak_bytes", "brute_force_plans", "brute_force_nested_plans", "recomputed_layers", "replay_work",
]


@dataclass
class LayerProfile:
    """What layer ``i`` holds, measured: sizes of its boundary and local arrays."""

    input_key: int            # identifies b[i-1]
    output_key: int           # identifies b[i]
    boundary_bytes: dict[int, int]
    saves_input: bool
    saves_output: bool
    # Arrays other than the boundaries, by buffer (keys are shared across layers,
    # so an array two layers hold is counted once by simulate_peak):
    local_saved: dict[int, int] = field(default_factory=dict)     # internal arrays its nodes save
    local_external: dict[int, int] = field(default_factory=dict)  # constants read from outside
    forward_seconds: float = 0.0
    # Its output is saved by the op that makes it (a tanh saves its output): a checkpointed
    # block ending with this layer keeps that output from its forward pass instead of
    # recomputing it (the layer after the block mostly holds it anyway).
    keeps_output: bool = False
    # Forward seconds of the ops the replay of a block ending with this layer still runs
    # when the block kept its output (those that make what its backward reads besides the
    # output: a residual block's first convolution, not its second); None: all of them.
    kept_output_seconds: float | None = None
    # Forward seconds of the ops a replay runs for this layer where nothing after it reads its
    # output (the layers after it in the replay are skipped, or it ends the replay and its output
    # is not kept): those whose outputs its own nodes save, and what they are computed from --
    # ``[Tanh, x * 3]`` runs its tanh alone.  None: all of them if it saves an array it computes,
    # none otherwise.  0.0: none.
    own_seconds: float | None = None
    # Whether those ops (``own_wants_input``), or those of ``kept_output_seconds`` (``kept_wants_input``),
    # read the layer's input or save it -- so the replay must make it; ``x + tanh(p)`` replays
    # ``tanh(p)`` from the parameter alone.  None: where they run, or where the layer saves its input.
    own_wants_input: bool | None = None
    kept_wants_input: bool | None = None
    # False where the layer's forward recorded no op (no parameter, on a value that needs no
    # gradient: the start of a chain whose input does not require grad): a replay never runs it,
    # its output is a value the segment keeps.
    recorded: bool = True
    # True where the layer's output has no history while it or a layer before it recorded ops
    # (``x.detach()``, a layer run under ``no_grad``): no backward reaches this layer or any
    # before it.  What they hold is held only while the forward pass goes through them: a plain
    # run's nodes there die with their tensors when the layer returns, and ``run_plan`` lets go
    # of the segments before it there (see ``ChainProfile.live`` and ``_cut_peak``).
    cuts: bool = False

    def own_work(self) -> tuple[float, bool, bool]:
        """``(seconds, runs, wants its input)`` of this layer in a replay that reads nothing it
        outputs and does not keep its output (see ``own_seconds``)."""
        if not self.recorded:
            return 0.0, False, False
        if self.own_seconds is None:
            runs = bool(self.local_saved) or self.saves_output
            seconds = self.forward_seconds if runs else 0.0
        else:
            runs, seconds = self.own_seconds > 0, min(self.own_seconds, self.forward_seconds)
        wants = self.saves_input or (runs if self.own_wants_input is None else self.own_wants_input)
        return seconds, runs, wants

    def last_work(self) -> tuple[float, bool, bool]:
        """``(seconds, runs, wants its input)`` of this layer where it ends a replayed level: its
        output is the block's, kept where the op that made it saves it (``keeps_output``)."""
        if not self.keeps_output or not self.recorded:
            return self.own_work()
        runs = bool(self.local_saved) and (self.kept_output_seconds is None or self.kept_output_seconds > 0)
        seconds = 0.0
        if runs:
            seconds = self.forward_seconds if self.kept_output_seconds is None else min(
                self.kept_output_seconds, self.forward_seconds)
        wants = self.saves_input or (runs if self.kept_wants_input is None else self.kept_wants_input)
        return seconds, runs, wants

    @property
    def skipped_when_last(self) -> bool:
        """True if the replay of a block that ends with this layer runs none of its forward."""
        return not self.last_work()[1]

    @property
    def last_seconds(self) -> float:
        """Forward seconds the replay of a block ending with this layer spends on it."""
        return self.last_work()[0]

    def saved_items(self) -> dict[Any, int]:
        """``S_i``: what a plain run of this layer holds until its backward."""
        items: dict[Any, int] = {("L", k): v for k, v in self.local_saved.items()}
        if self.saves_input:
            items[("B", self.input_key)] = self.boundary_bytes[self.input_key]
        if self.saves_output:
            items[("B", self.output_key)] = self.boundary_bytes[self.output_key]
        return items


@dataclass
class ChainProfile:
    layers: list[LayerProfile]

    def __len__(self) -> int:
        return len(self.layers)

    def kept_items(self, start: int, stop: int, output: bool = True) -> dict[Any, int]:
        """``K``: what a checkpointed block keeps to replay from -- its input and the
        constants its layers read -- and its output where its last layer keeps it
        (``output=False`` leaves that out: inside the replay the output belongs to the
        last inner block, which lets it go after its backward)."""
        last = self.layers[stop - 1]
        items = self.kept_input(start, stop)
        for lp in self.layers[start:stop]:
            for k, v in lp.local_external.items():
                items[("L", k)] = v
        if output and last.keeps_output:
            items[("B", last.output_key)] = last.boundary_bytes[last.output_key]
        return items

    def replay_items(self, block: Block) -> dict[Any, int]:
        """What checkpointed ``block`` holds under its inner level while it is reversed: its input,
        and the constants read by its layers that run plain in it.  A constant only layers of an
        inner checkpointed block read is that block's to keep (its ``K``, in the inner level's
        holds): it goes with that block's backward, before the blocks ahead of it replay."""
        items = self.kept_input(block.start, block.stop)
        for inner in block.inner:
            if not inner.checkpointed:
                for lp in self.layers[inner.start:inner.stop]:
                    items.update({("L", k): v for k, v in lp.local_external.items()})
        return items

    def kept_input(self, start: int, stop: int) -> dict[Any, int]:
        """The boundary a checkpointed block keeps to replay from: the input of its first layer
        that recorded an op.  The layers before that one never replay (their output is a value
        the segment keeps, as it keeps the block's input), so a block whose leading layers
        recorded nothing keeps their output, and one that recorded nothing at all keeps nothing."""
        for lp in self.layers[start:stop]:
            if lp.recorded:
                return {("B", lp.input_key): lp.boundary_bytes[lp.input_key]}
        return {}

    def last_cut(self) -> int:
        """The last layer that cuts the chain's history (``LayerProfile.cuts``), or -1."""
        return max((i for i, lp in enumerate(self.layers) if lp.cuts), default=-1)

    def live(self) -> ChainProfile:
        """The chain as its backward sees it: the layers up to the last cut hold nothing and never
        replay, as layers that recorded no op (a block over them keeps what its first layer after
        the cut that recorded one reads).  ``self`` where nothing cuts."""
        last = self.last_cut()
        if last < 0:
            return self
        dead = [LayerProfile(lp.input_key, lp.output_key, dict(lp.boundary_bytes), False, False,
                             forward_seconds=lp.forward_seconds, own_seconds=0.0, recorded=False)
                for lp in self.layers[:last + 1]]
        return ChainProfile(dead + self.layers[last + 1:])

    def recompute_seconds(self, start: int, stop: int) -> float:
        """Forward time of layers ``start .. stop-1`` (what a replay that runs them all costs)."""
        return sum(lp.forward_seconds for lp in self.layers[start:stop])


def _bytes(items: dict[Any, int]) -> int:
    return sum(items.values())


def simulate_peak(profile: ChainProfile, plan: Plan | Sequence[Block]) -> int:
    """The peak bytes the ledger will measure for ``plan`` (the exact memory model).

    A level of blocks -- the plan's, or a checkpointed block's inner ones -- holds,
    once run, what each of its blocks holds (a plain layer its ``S_i``, a
    checkpointed block its ``K``); in backward each checkpointed block, on top of
    what the blocks before it hold, keeps its ``K`` and replays its inner level,
    which peaks by the same rule one level down.
    """
    blocks = plan.blocks if isinstance(plan, Plan) else tuple(plan)
    check_covers(blocks, len(profile))
    live = profile.live()
    peak = _level_peak(live, blocks, {}, 0)
    return peak if live is profile else max(peak, _cut_peak(profile, blocks))


def _cut_peak(profile: ChainProfile, blocks: Sequence[Block]) -> int:
    """The most the forward pass holds before each cut (``LayerProfile.cuts``), the moment before
    it lets go of everything before the cut: what the plan's top-level blocks since the last cut
    hold (a plain layer its ``S_i``, a checkpointed block its ``K``), and, for a checkpointed block
    the cut falls in, what its segment keeps while it records -- the input of the first layer that
    recorded an op after each cut in it (and before the first), and every layer's constants.  At
    its end the segment lets go of what the layers before its last cut read; it keeps ``K`` of
    the layers after it (:meth:`ChainProfile.live`'s)."""
    layers, peak, held = profile.layers, 0, {}
    for b in blocks:
        if not b.checkpointed:
            for i in range(b.start, b.stop):
                held.update(layers[i].saved_items())
                if layers[i].cuts:
                    peak, held = max(peak, _bytes(held)), {}
            continue
        cuts = [i + 1 for i in range(b.start, b.stop) if layers[i].cuts]
        if not cuts:
            held.update(profile.kept_items(b.start, b.stop))
            continue
        recording = dict(held)
        for s, e in zip([b.start, *cuts], [*cuts, b.stop]):
            recording.update(profile.kept_input(s, e) if s < e else {})
        for lp in layers[b.start:b.stop]:
            recording.update({("L", k): v for k, v in lp.local_external.items()})
        # (and once it returned, its kept result beside what came before, until the caller moves on)
        after = profile.kept_items(cuts[-1], b.stop) if cuts[-1] < b.stop else {}
        peak = max(peak, _bytes(recording), _bytes({**held, **after}))
        held = after
    return peak


def _level_peak(profile: ChainProfile, blocks: Sequence[Block], base: dict[Any, int], base_bytes: int) -> int:
    """The peak of a level run on top of ``base`` (items held below it, ``base_bytes`` in all)."""
    holds: list[dict[Any, int]] = []
    for b in blocks:
        if b.checkpointed:
            holds.append(profile.kept_items(b.start, b.stop))
        else:
            saved: dict[Any, int] = {}
            for lp in profile.layers[b.start:b.stop]:
                saved.update(lp.saved_items())
            holds.append(saved)
    prefix = dict(base)
    prefix_bytes = base_bytes
    everything = dict(base)
    for h in holds:
        everything.update(h)
    peak = _bytes(everything)
    # what the blocks before each one hold, grown as we go
    for b, h in zip(blocks, holds):
        if b.checkpointed:  # replays on top of its input and constants (its kept output is its last block's)
            replay_base = profile.replay_items(b)
            inner_base = dict(prefix)
            added = sum(v for k, v in replay_base.items() if k not in prefix)
            inner_base.update(replay_base)
            peak = max(peak, _level_peak(profile, b.inner, inner_base, prefix_bytes + added))
        for k, v in h.items():
            if k not in prefix:
                prefix[k] = v
                prefix_bytes += v
    return peak


def split_at_cut(profile: ChainProfile) -> tuple[int, tuple[Block, ...], int, ChainProfile] | None:
    """``(d, blocks, peak, rest)`` where layers ``0..d-1`` end with the chain's last cut
    (``LayerProfile.cuts``): the blocks for them that hold the least while the forward pass goes
    through them (all plain, or one checkpointed block: neither ever replays), that least, and the
    chain after them, which a planner plans as a chain of its own.  ``None`` where nothing cuts."""
    d = profile.last_cut() + 1
    if d == 0:
        return None
    head = ChainProfile(profile.layers[:d])
    options = [tuple(Block(i, i + 1, False) for i in range(d)), (Block(0, d, True),)]
    peak, blocks = min(((_cut_peak(head, b), i), b) for i, b in enumerate(options))
    return d, blocks, peak[0], ChainProfile(profile.layers[d:])


def plan_after_cut(profile: ChainProfile, budget: int, plan_rest: Any, policy: str) -> Plan:
    """The plan ``plan_rest(rest, budget)`` makes for the chain after its last cut, behind the
    blocks :func:`split_at_cut` gives the layers before it, with the model's figures; an
    :class:`InfeasibleBudgetError` states the smallest budget of the two parts together."""
    d, head, head_peak, rest = split_at_cut(profile)
    try:
        tail = plan_rest(rest, budget).blocks if len(rest) else ()
    except InfeasibleBudgetError as e:
        raise InfeasibleBudgetError(budget, max(head_peak, e.smallest_feasible_bytes)) from None
    if head_peak > budget:
        raise InfeasibleBudgetError(budget, max(head_peak, simulate_peak(rest, tail) if tail else 0))
    blocks = head + moved(tail, d)
    return Plan(blocks, predicted_peak_bytes=simulate_peak(profile, blocks),
                recompute_seconds=plan_cost(profile, blocks), policy=f"{policy}({budget:,} B)")


def plan_cost(profile: ChainProfile, blocks: Sequence[Block] | Plan) -> float:
    """Recompute seconds of a plan: every replay's forward work (see :func:`replay_work`)."""
    blocks = blocks.blocks if isinstance(blocks, Plan) else blocks
    profile = profile.live()  # (no replay runs what comes before a cut)
    return sum(replay_work(profile, b, LayerWork.seconds(profile)) for b in blocks if b.checkpointed)


def recomputed_layers(profile: ChainProfile, plan: Plan | Sequence[Block]) -> int:
    """How many layer forwards the replays of ``plan`` run, a layer run in part counted as
    one (the count Revolve minimizes)."""
    blocks = plan.blocks if isinstance(plan, Plan) else tuple(plan)
    check_covers(blocks, len(profile))  # (a plan for another chain counts layers that are not there)
    profile = profile.live()
    return sum(replay_work(profile, b, LayerWork.counts(profile)) for b in blocks if b.checkpointed)


@dataclass
class LayerWork:
    """What a replay spends on each layer, by how much of it runs: ``full`` where something
    after it in the replay reads its output; ``own`` where nothing does (only the ops its own
    saved values need, :meth:`LayerProfile.own_work`); ``last`` where it ends a replayed level
    (:meth:`LayerProfile.last_work`).  ``own_wants[i]`` / ``last_wants[i]``: whether layer ``i``,
    so run, needs its input made (a fully run layer always does)."""

    full: list[Any]
    own: list[Any]
    last: list[Any]
    own_wants: list[bool]
    last_wants: list[bool]

    @classmethod
    def of(cls, profile: ChainProfile, full: Sequence[Any], counts: bool) -> LayerWork:
        own = [lp.own_work() for lp in profile.layers]
        last = [lp.last_work() for lp in profile.layers]
        # a layer's count is 1 where it runs at all; one that recorded nothing never runs
        full = [f if lp.recorded else 0 * f for f, lp in zip(full, profile.layers)]
        return cls(full, [int(w[1]) if counts else w[0] for w in own],
                   [int(w[1]) if counts else w[0] for w in last],
                   [w[2] for w in own], [w[2] for w in last])

    @classmethod
    def seconds(cls, profile: ChainProfile) -> LayerWork:
        return cls.of(profile, [lp.forward_seconds for lp in profile.layers], False)

    @classmethod
    def counts(cls, profile: ChainProfile) -> LayerWork:
        return cls.of(profile, [1] * len(profile), True)

    def partial_from(self) -> list[int]:
        """``p[e]``: a replay of plain layers ending with layer ``e-1`` runs layers ``p[e] .. e-1``
        in part (``e-1`` as the last, the others for their own saved values) and those before
        ``p[e]`` in full: ``p[e]`` is the last of them whose input the replay must make."""
        p, start = [0], 0
        for e in range(1, len(self.full) + 1):
            # the layers after layer j-1 in a block ending at e want nothing of it from j on
            p.append(e - 1 if self.last_wants[e - 1] else start)
            start = e - 1 if self.own_wants[e - 1] else start  # for the blocks ending later
        return p

    def block_ends(self) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        """``(P, O, P_end, O_end)``: the replay of a block of plain layers ``[s, e)`` costs
        ``max(P_end[e] - P[s], O_end[e] - O[s])``.  ``P`` and ``O`` sum the layers' ``full`` and
        ``own`` work; from a start ``s <= p[e]`` (see :meth:`partial_from`) the first term is the
        cost, from a later one -- every layer run in part -- the second, and since no layer's
        ``own`` exceeds its ``full`` the larger of the two is always the right one."""
        P, O = [0], [0]
        for f, o in zip(self.full, self.own):
            P.append(P[-1] + f)
            O.append(O[-1] + o)
        p = self.partial_from()
        O_end = [0] + [O[e - 1] + self.last[e - 1] for e in range(1, len(P))]
        P_end = [0] + [P[p[e]] + O_end[e] - O[p[e]] for e in range(1, len(P))]
        return P, O, P_end, O_end


def replay_work(profile: ChainProfile, block: Block, work: LayerWork | Sequence[Any]) -> Any:
    """The forward work of replaying checkpointed ``block`` and, later, its inner ones.

    A replay runs what backward or a later replay needs, found back to front as the
    engine's replay does (``Segment._demand``): a layer runs in full if a later layer of the
    level reads its output (one that needs its input, see :class:`LayerWork`) or an inner
    checkpointed block replays from it; otherwise only the ops its own saved values need,
    which may be none -- and the level's last layer so too, less its output where the block
    kept it.  So a layer only a skipped layer reads is skipped too.  An inner checkpointed
    block runs in its parent's replay if its output is read there or kept (an inner block's
    kept result is made by its parent's replay), unless it ends the level; it then replays
    itself.  ``work`` may be one number per layer (each layer's work wherever it runs).
    """
    if not isinstance(work, LayerWork):
        counted = LayerWork.counts(profile)
        work = LayerWork(list(work), [w * r for w, r in zip(work, counted.own)],
                         [w * r for w, r in zip(work, counted.last)], counted.own_wants, counted.last_wants)
    layers = profile.layers
    total = 0
    stack = [block]
    while stack:  # nesting depth is small, but a loop costs nothing here
        inner = stack.pop().inner
        wanted = False  # is the output of the block before this one read in this replay?
        for k in range(len(inner) - 1, -1, -1):
            sub = inner[k]
            if sub.checkpointed:
                stack.append(sub)
                if k < len(inner) - 1 and (wanted or layers[sub.stop - 1].keeps_output):
                    total += sum(work.full[sub.start:sub.stop])
                wanted = True  # the replay hands it its input
                continue
            for i in range(sub.stop - 1, sub.start - 1, -1):
                if k == len(inner) - 1 and i == sub.stop - 1:
                    total, wanted = total + work.last[i], work.last_wants[i]
                elif wanted:
                    total += work.full[i]
                else:
                    total, wanted = total + work.own[i], work.own_wants[i]
    return total


# ---------------------------------------------------------------- the DP's states and transitions
State = tuple[int, frozenset]


class _Transitions:
    """The DP's graph.  A state ``(s, held)`` is "layers ``0..s-1`` are planned";
    ``held`` is the set of arrays the prefix already holds that later layers may
    hold too -- the input ``b[s-1]`` (also through view layers) and constants
    shared by several layers -- so no array is counted twice.  The set is small in
    practice (2^k states for k shared constants).

    Out of a state go a plain layer ``s`` (it adds its ``S_s`` to everything after
    it) and checkpointed blocks ``[s..e]`` (each adds its ``K`` to everything after
    it and peaks at ``K + S_s..S_e`` during its replay), produced by growing the
    block one layer at a time so each costs O(its last layer's arrays).
    """

    def __init__(self, profile: ChainProfile, allow_plain: bool, max_block: int | None) -> None:
        self.n = len(profile)
        self.layers = profile.layers
        self.allow_plain, self.max_block = allow_plain, max_block
        self.saved = [lp.saved_items() for lp in self.layers]
        self.external = [{("L", k): v for k, v in lp.local_external.items()} for lp in self.layers]
        # Arrays held by more than one layer besides the boundaries (a constant several
        # layers read): the state carries which of them the prefix holds, so each counts once.
        seen: dict[Any, int] = {}
        for lp in self.layers:
            for k in {*lp.local_saved, *lp.local_external}:
                seen[("L", k)] = seen.get(("L", k), 0) + 1
        self.shared = frozenset(k for k, c in seen.items() if c > 1)
        self.P, self.O, self.P_end, self.O_end = LayerWork.seconds(profile).block_ends()

    def plain(self, s: int, held: frozenset) -> tuple[Block, int, State]:
        """Layer ``s`` run plainly: ``(block, bytes it adds, next state)``."""
        lp = self.layers[s]
        in_key = ("B", lp.input_key)
        items = {k: v for k, v in self.saved[s].items() if k not in held}
        # its output is held if it saves it, or if it is a view of a held input
        out_held = lp.saves_output or (lp.output_key == lp.input_key and (in_key in held or lp.saves_input))
        nxt = (held & self.shared) | (self.shared & items.keys()) | ({("B", lp.output_key)} if out_held else set())
        return Block(s, s + 1, False), sum(items.values()), (s + 1, frozenset(nxt))

    def blocks(self, s: int, held: frozenset,
               replay_limit: float = math.inf) -> Iterator[tuple[Block, int, int, float, State]]:
        """Checkpointed blocks from ``s``, shortest first: ``(block, K, replay peak, seconds,
        next state)``.  Stops before the first whose replay peak exceeds ``replay_limit``
        (the peak only grows with the block, so no later one fits either)."""
        layers, shared = self.layers, self.shared
        in_key = None  # the boundary the block keeps (ChainProfile.kept_input): none until a layer records
        base = held & shared
        kept_keys: set = set()
        full_keys: set = set()
        kept = full = 0
        shared_kept = frozenset(base)
        stop = self.n if self.max_block is None else min(self.n, s + self.max_block)
        for e in range(s + 1, stop + 1):
            i = e - 1
            grew = False
            if in_key is None and layers[i].recorded:
                in_key = ("B", layers[i].input_key)
                if in_key not in held:
                    kept += layers[i].boundary_bytes[layers[i].input_key]
                    full += layers[i].boundary_bytes[layers[i].input_key]
                kept_keys.add(in_key)
                full_keys.add(in_key)
            for k, v in self.external[i].items():
                if k not in kept_keys:
                    kept_keys.add(k)
                    if k not in held:
                        kept += v
                    if k in shared:
                        grew = True
                if k not in full_keys:
                    full_keys.add(k)
                    if k not in held:
                        full += v
            for k, v in self.saved[i].items():
                if k not in full_keys:
                    full_keys.add(k)
                    if k not in held:
                        full += v
            if full > replay_limit:
                return
            if grew:
                shared_kept = frozenset(base | (shared & kept_keys))
            # the last layer of the block runs in its replay only as far as its backward needs,
            # and so do the layers only it reads (see LayerWork)
            seconds = max(self.P_end[e] - self.P[s], self.O_end[e] - self.O[s])
            # the block keeps its input; its output is that same buffer if its recorded layers are all views
            nxt = shared_kept | {in_key} if ("B", layers[i].output_key) == in_key else shared_kept
            out_kept = 0
            if layers[i].keeps_output:  # and its output, made by an op that saves it
                out_key = ("B", layers[i].output_key)
                if out_key not in kept_keys and out_key not in held:
                    out_kept = layers[i].boundary_bytes[layers[i].output_key]
                nxt = nxt | {out_key}
            yield Block(s, e, True), kept + out_kept, full, seconds, (e, frozenset(nxt))


# ---------------------------------------------------------------- the dynamic programs
# A frontier entry is ``(peak or hold, seconds, number of blocks, link)``; ``link`` is
# ``(block, next entry)`` (or ``(block, previous entry)`` going forward), so a plan is
# read off by following links instead of copying a tuple of blocks into every entry.
Entry = tuple[int, float, int, Any]


def _reachable(tr: _Transitions) -> list[dict[frozenset, None]]:
    """The ``held`` sets that occur at each layer, in a fixed order (dicts, not sets:
    the order of equal-valued options, hence tie-breaking, must not depend on hashing)."""
    levels: list[dict[frozenset, None]] = [{} for _ in range(tr.n + 1)]
    levels[0][frozenset()] = None
    for s in range(tr.n):
        for held in levels[s]:
            if tr.allow_plain:
                levels[s + 1][tr.plain(s, held)[2][1]] = None
            for _, _, _, _, (e, nxt) in tr.blocks(s, held):
                levels[e][nxt] = None
    return levels


def _blocks_of(entry: Entry) -> tuple[Block, ...]:
    out = []
    link = entry[3]
    while link is not None:
        out.append(link[0])
        link = link[1][3]
    return tuple(out)


def pareto_plans(profile: ChainProfile, allow_plain: bool = True,
                 max_block: int | None = None) -> list[Plan]:
    """Every plan not beaten in both peak memory and recompute time, by peak.

    Dynamic programming over suffixes: ``F(s, held)`` is the frontier of
    ``(peak, cost)`` for layers ``s..n-1`` counted above what the prefix holds
    (see :class:`_Transitions` for ``held``).  A plain layer ``s`` adds its ``S_s``
    to the suffix's peak; a checkpointed ``[s..e]`` gives ``max(K + peak after it,
    its replay peak)``.  The states are found first, front to back, then solved
    back to front in a loop.  The whole frontier of a long chain is large (every
    trade-off of memory against time); to plan under a budget use
    :func:`flat_plan_for_budget`, which never builds it.
    """
    split = split_at_cut(profile)
    if split is not None and len(split[3]):  # (the layers before the last cut never replay: see split_at_cut)
        d, head, _, rest = split
        plans = sorted((Plan(head + moved(p.blocks, d), predicted_peak_bytes=simulate_peak(profile, head + moved(
            p.blocks, d)), recompute_seconds=p.recompute_seconds) for p in pareto_plans(rest, allow_plain, max_block)),
            key=lambda p: (p.predicted_peak_bytes, p.recompute_seconds))
        front = []
        for p in plans:  # (below the layers before the cut's peak, the rest's cheaper plans win)
            if not front or p.recompute_seconds < front[-1].recompute_seconds:
                front.append(p)
        return front
    tr = _Transitions(profile, allow_plain, max_block)
    n = tr.n
    levels = _reachable(tr)
    front: dict[State, list[Entry]] = {(n, held): [(0, 0.0, 0, None)] for held in levels[n]}
    for s in range(n - 1, -1, -1):
        for held in levels[s]:
            options: list[Entry] = []
            if allow_plain:
                blk, h, nxt = tr.plain(s, held)
                options.extend((h + o[0], o[1], o[2] + 1, (blk, o)) for o in front[nxt])
            for blk, k, f, cost, nxt in tr.blocks(s, held):
                options.extend((max(k + o[0], f), cost + o[1], o[2] + 1, (blk, o)) for o in front[nxt])
            front[(s, held)] = _pareto(options)
    return [Plan(_blocks_of(o), predicted_peak_bytes=o[0], recompute_seconds=o[1]) for o in front[(0, frozenset())]]


_entry_order = operator.itemgetter(0, 1, 2)


def _pareto(options: list[Entry]) -> list[Entry]:
    """Keep the options that no other option beats in both peak and cost."""
    options.sort(key=_entry_order)
    out = []
    best_cost = math.inf
    for o in options:
        if o[1] < best_cost - 1e-15:
            out.append(o)
            best_cost = o[1]
    return out


class _MinPeak:
    """``G(s, held)``: the smallest peak of layers ``s..n-1`` above what the prefix holds.

    ``G(s, held) = min(S_s + G(s + 1), min_e max(K + G(e), replay peak of [s..e]))``,
    solved depth first with an explicit stack (no recursion) and memoized, so any
    state can be asked for.  Blocks from ``s`` are tried shortest first and only
    while their replay peak is below the best value found so far, which bounds
    them near ``sqrt`` of the chain's length.
    """

    def __init__(self, tr: _Transitions) -> None:
        self.tr = tr
        self.memo: dict[State, int] = {}

    def _options(self, state: State) -> Iterator[tuple[int, int, State]]:
        # (bytes added to what follows, replay peak or -1, next state), plain first
        s, held = state
        if self.tr.allow_plain:
            _, h, nxt = self.tr.plain(s, held)
            yield h, -1, nxt
        for _, k, f, _, nxt in self.tr.blocks(s, held):
            yield k, f, nxt

    def __call__(self, state: State) -> int:
        memo, n = self.memo, self.tr.n
        if state[0] == n:
            return 0
        if state in memo:
            return memo[state]
        # frames: [state, option iterator, best so far, option waiting for its next state's value]
        stack: list[list[Any]] = [[state, self._options(state), math.inf, None]]
        while stack:
            frame = stack[-1]
            st, it, best, waiting = frame
            if waiting is not None:
                add, f, nxt = waiting
                best = min(best, max(add + memo[nxt], f))
            descended = False
            for add, f, nxt in it:
                if f >= best:
                    break  # a longer block only replays more
                v = 0 if nxt[0] == n else memo.get(nxt)
                if v is None:
                    frame[2], frame[3] = best, (add, f, nxt)
                    stack.append([nxt, self._options(nxt), math.inf, None])
                    descended = True
                    break
                best = min(best, max(add + v, f))
            if not descended:
                memo[st] = best
                stack.pop()
        return memo[state]


def flat_min_peak_bytes(profile: ChainProfile, allow_plain: bool = True) -> int:
    """The smallest peak any one-level plan reaches."""
    if len(profile) == 0:
        return 0
    split = split_at_cut(profile)
    if split is not None:  # (what comes before the last cut, and the chain after it: see split_at_cut)
        return max(split[2], flat_min_peak_bytes(split[3], allow_plain) if len(split[3]) else 0)
    local = _LocalChain.of(profile)
    if local is not None:
        return int(local.min_peaks(allow_plain)[0][0])
    return int(_MinPeak(_Transitions(profile, allow_plain, None))((0, frozenset())))


def flat_plan_for_budget(profile: ChainProfile, budget_bytes: int, policy: str = "Optimal") -> Plan:
    """The one-level plan with the least recompute time whose peak fits ``budget_bytes``
    (:func:`.nested.plan_for_budget` also weighs nested plans).

    Dynamic programming front to back, with the budget built in: at each state
    the frontier of ``(bytes the prefix holds, recompute seconds so far)``.  A
    plain layer adds its ``S_i`` to the hold; a checkpointed block may start only
    if the hold plus its replay peak fits the budget, and adds its ``K``.  Every
    partial plan in a frontier therefore fits, and one that cannot finish within
    the budget (its hold plus :func:`min_peak_bytes` of the rest is over) is
    dropped.  Chains whose arrays are all local (see :class:`_LocalChain`, the
    usual case) take a vectorized path that handles 10,000 layers in seconds.
    """
    budget = budget_in_bytes(budget_bytes, "flat_plan_for_budget")
    if split_at_cut(profile) is not None:
        return plan_after_cut(profile, budget, flat_plan_for_budget, policy)
    plain = tuple(Block(i, i + 1, False) for i in range(len(profile)))
    if simulate_peak(profile, plain) <= budget:  # nothing recomputed: no plan is cheaper
        return Plan(plain, predicted_peak_bytes=simulate_peak(profile, plain), recompute_seconds=0.0,
                    policy=f"{policy}({budget:,} B)")
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of short-lived linked tuples: the cyclic collector only rescans them
    try:
        local = _LocalChain.of(profile)
        blocks, seconds = (_budget_local(local, budget) if local is not None
                           else _budget_general(_Transitions(profile, True, None), budget))
    finally:
        if gc_was_enabled:
            gc.enable()
    if blocks is None:
        raise InfeasibleBudgetError(budget, flat_min_peak_bytes(profile))
    # The figures reported are recomputed from the model itself, the single source of truth.
    return Plan(blocks, predicted_peak_bytes=simulate_peak(profile, blocks),
                recompute_seconds=plan_cost(profile, blocks), policy=f"{policy}({budget:,} B)")


def _budget_general(tr: _Transitions, budget: int) -> tuple[tuple[Block, ...] | None, float]:
    """:func:`flat_plan_for_budget` for any chain, one partial plan at a time."""
    n = tr.n
    # pending[s][held]: every partial plan reaching layer s with that held set
    pending: list[dict[frozenset, list[Entry]] | None] = [{} for _ in range(n + 1)]
    pending[0][frozenset()] = [(0, 0.0, 0, None)]
    least = _MinPeak(tr)  # what the rest needs at least: prunes partial plans that cannot finish
    for s in range(n):
        for held, opts in pending[s].items():
            if not opts:
                continue
            front = _pareto(opts)
            blk, h, nxt = tr.plain(s, held)
            limit = budget - h - least(nxt)
            target = pending[s + 1].setdefault(nxt[1], [])
            for o in front:
                if o[0] > limit:
                    break
                target.append((o[0] + h, o[1], o[2] + 1, (blk, o)))
            for blk, k, f, cost, nxt in tr.blocks(s, held, budget - front[0][0]):
                limit = min(budget - f, budget - k - least(nxt))
                target = pending[nxt[0]].setdefault(nxt[1], [])
                for o in front:
                    if o[0] > limit:
                        break
                    target.append((o[0] + k, o[1] + cost, o[2] + 1, (blk, o)))
        pending[s] = None  # read only through links from now on
    finals = [o for opts in pending[n].values() for o in opts]
    if not finals:
        return None, math.inf
    best = min(finals, key=lambda o: (o[1], o[0], o[2]))
    return _blocks_of(best)[::-1], best[1]


class _LocalChain:
    """A chain whose arrays are *local*: no view layers (every boundary its own
    buffer), no constant shared by two layers.  Then the only array two layers
    can share is the boundary between neighbours, and every quantity of the model
    is a difference of prefix sums:

    * a plain layer ``s`` adds ``S_s`` (less its input if the prefix holds it);
    * a checkpointed ``[s..e]`` keeps ``K = a_s + X[e] - X[s] + ko[e]`` (its output
      too where its last layer keeps it) and replays
      ``phi(s) + U[e]``, where ``a_s`` is its input's size (0 if held), ``X`` sums
      the layers' outside constants and ``U`` their arrays, each boundary once.

    ``held`` is a single bit here: does the prefix hold layer ``s``'s input (the
    layer before was plain and saved its output)?
    """

    @classmethod
    def of(cls, profile: ChainProfile) -> _LocalChain | None:
        layers = profile.layers
        if not all(lp.recorded for lp in layers):  # a block keeps a later boundary (kept_input)
            return None
        keys = [lp.input_key for lp in layers[:1]] + [lp.output_key for lp in layers]
        if len(set(keys)) != len(keys) or any(
                layers[i].input_key != layers[i - 1].output_key for i in range(1, len(layers))):
            return None
        seen: set = set()
        for lp in layers:
            mine = {*lp.local_saved, *lp.local_external}
            if mine & seen:
                return None
            seen |= mine
        return cls(profile)

    def __init__(self, profile: ChainProfile) -> None:
        layers = profile.layers
        self.n = n = len(layers)
        self.a = [lp.boundary_bytes[lp.input_key] for lp in layers]
        self.si = [lp.saves_input for lp in layers]
        self.so = [lp.saves_output for lp in layers]
        # a checkpointed block ending at e keeps its output too where its last layer does:
        # ``ko[e]`` more bytes, and the layer at e finds its input held (``kb[e]``)
        self.kb = [0] + [int(lp.keeps_output) for lp in layers]
        self.ko = [0] + [lp.boundary_bytes[lp.output_key] if lp.keeps_output else 0 for lp in layers]
        self.saved = [_bytes(lp.saved_items()) for lp in layers]
        W = [0] * (n + 1)   # arrays of layers < e (each layer's saved and outside ones, once)
        D = [0] * (n + 1)   # boundaries two neighbours both hold, counted in W twice
        X = [0] * (n + 1)   # outside constants of layers < e
        for i, lp in enumerate(layers):
            items = {**lp.saved_items(), **{("L", k): v for k, v in lp.local_external.items()}}
            W[i + 1] = W[i] + _bytes(items)
            D[i + 1] = D[i] + (self.a[i] if i > 0 and self.si[i] and self.so[i - 1] else 0)
            X[i + 1] = X[i] + sum(lp.local_external.values())
        self.X = X
        # a block [s, e) replays for max(P_end[e] - P[s], O_end[e] - O[s]) (LayerWork.block_ends):
        # P and O sum the layers' full and partial work, forward seconds when all of them run
        work = LayerWork.seconds(profile)
        self.P, self.O, self.P_end, self.O_end = work.block_ends()
        # whether some block's replay runs its first layers in part: its cost is then not
        # ``P_end[e] - P[s]`` from every start (see _LocalWalk.advance)
        self.partial_runs = any(p < e - 1 for e, p in enumerate(work.partial_from()))
        self.U = [W[e] - D[e] for e in range(n + 1)]
        self.W, self.D = W, D

    def plain(self, s: int, held: int) -> int:
        return self.saved[s] - (self.a[s] if held and self.si[s] else 0)

    def kappa(self, s: int, held: int) -> int:
        """``K`` of a block from ``s`` is ``kappa + X[e] + ko[e]``."""
        return (0 if held else self.a[s]) - self.X[s]

    def phi(self, s: int, held: int) -> int:
        """The replay peak of a block from ``s`` is ``phi + U[e]``."""
        a = self.a[s]
        return (0 if held else a) - (a if self.si[s] else 0) - self.W[s] + self.D[s + 1]

    def min_peaks(self, allow_plain: bool = True) -> list[list[float]]:
        """``G[s][held]``, back to front; blocks from ``s`` are scanned in one vector
        operation, only as far as their replay peak stays below the best so far."""
        n, U, X = self.n, self.U, self.X
        G = [[math.inf, math.inf] for _ in range(n + 1)]
        G[n] = [0, 0]
        Ua = np.asarray(U, dtype=np.float64)
        A = np.full(n + 1, np.inf)  # X[e] + ko[e] + G[e][kb[e]]: what a block ending at e leaves after it
        A[n] = X[n] + self.ko[n]
        for s in range(n - 1, -1, -1):
            for held in (0, 1):
                best = self.plain(s, held) + G[s + 1][int(self.so[s])] if allow_plain else math.inf
                phi, kap = self.phi(s, held), self.kappa(s, held)
                # blocks [s..e] with phi + U[e] < best: e < first index where U >= best - phi
                stop = int(np.searchsorted(Ua, best - phi, side="left")) if best < math.inf else n + 1
                stop = min(max(stop, s + 1), n + 1)
                if stop > s + 1:
                    vals = np.maximum(kap + A[s + 1:stop], phi + Ua[s + 1:stop])
                    best = min(best, float(vals.min()))
                G[s][held] = best
            if s > 0:
                A[s] = X[s] + self.ko[s] + G[s][self.kb[s]]
        return G


def _pareto_arrays(H: Any, C: Any) -> Any:
    """Indices of the (hold, cost) pairs no other pair beats in both, by hold.

    One sort by hold (inputs are a few already sorted runs, which the stable sort
    merges in linear time); a pair survives if it is cheaper than everything
    before it and is the last (hence cheapest) survivor of its hold.
    """
    order = np.argsort(H, kind="stable")
    h, c = H[order], C[order]
    prev = np.minimum.accumulate(np.concatenate(([np.inf], c[:-1])))
    cand = np.flatnonzero(c < prev - 1e-15)
    hc = h[cand]
    last = np.concatenate((hc[1:] != hc[:-1], [True]))
    return order[cand[last]]


def _dominated(qa: Any, qb: Any, sa: Any, sb: Any, sorted_a: bool = False) -> Any:
    """For each query point ``(qa, qb)``: is some point of ``(sa, sb)`` no larger in both?"""
    if not len(sa):
        return np.zeros(len(qa), dtype=bool)
    if not sorted_a:
        order = np.argsort(sa, kind="stable")
        sa, sb = sa[order], sb[order]
    least_b = np.minimum.accumulate(sb)
    i = np.searchsorted(sa, qa, side="right")
    return (i > 0) & (least_b[np.maximum(i - 1, 0)] <= qb)


def _pool_insert(pool: tuple[Any, ...], new: tuple[Any, ...], gap: Any = None) -> tuple[Any, ...]:
    """Add ``new`` members to the pool, keeping only members no other beats in hold,
    cost *and* q: one that is no better in any of the three never becomes the best
    block (it is never cheaper, never smaller, and leaves the pool no later).

    Three-way comparisons reduce to two-way ones because ``q - hold`` of a member
    is ``phi - kappa`` of its block's start, which never grows along the chain
    (a later start has replayed less): the new members (started last) have the
    smallest.  So a pool member beats a new one iff it is no worse in ``q`` and
    cost, and a new one beats a pool member iff it is no worse in hold and cost.

    Where a block can replay nothing (it starts among the layers a replay skips), its
    cost is its partial plan's own, ``cost + P[start]``: ``gap`` (``P[e] - P[start]`` of
    each pool member, new ones starting at ``e``) makes a new member beat an older one
    only if it is no worse in that too.
    """
    PH, PC, PQ = pool[:3]
    NH, NC, NQ = new[:3]
    keep = _pareto_arrays(NH, NC)  # the new ones among themselves (same start: q follows hold)
    new = tuple(a[keep] for a in new)
    NH, NC, NQ = new[:3]
    fresh = ~_dominated(NQ, NC, PQ, PC, sorted_a=True)
    new = tuple(a[fresh] for a in new)
    stale = _dominated(PH, PC if gap is None else PC - gap, new[0], new[1])
    merged = tuple(np.concatenate((a[~stale], b)) for a, b in zip(pool, new))
    order = np.argsort(merged[2], kind="stable")  # the pool stays sorted by q
    return tuple(a[order] for a in merged)


def _budget_local(ch: _LocalChain, budget: int) -> tuple[tuple[Block, ...] | None, float]:
    """:func:`flat_plan_for_budget` for a local chain, whole frontiers at a time.

    Going forward, a checkpointed block from a partial plan ``(hold H, cost c)``
    at ``s`` reaches ``e`` as ``(H + kappa_s + X[e] + ko[e], c - P[s] + P_end[e])`` and may
    run only while ``H + phi_s + U[e] <= budget``.  So each partial plan enters a
    pool once, as ``(H + kappa_s, c - P[s], q = H + phi_s)``; the blocks reaching
    ``e`` are the pool's members with ``q <= budget - U[e]`` (a threshold that only
    falls: members leave for good), shifted by ``(X[e], P_end[e])``.  The frontier
    at ``e`` is then a few array operations instead of a loop over every block.
    """
    G = ch.min_peaks()
    if G[0][0] > budget:
        return None, math.inf
    walk = _LocalWalk(ch, budget, G)
    for e in range(1, ch.n + 1):
        walk.advance(e)
        if not walk.front and (e == ch.n or not len(walk.pool[0])):
            return None, math.inf  # nothing reaches e, and no open block passes it
    return walk.best()


class _LocalWalk:
    """The state of :func:`_budget_local`'s walk along the chain.

    Every frontier entry gets an id; its block and predecessor are kept (``par``,
    ``start``, ``stop``, ``ckpt``) to read the plan back.  ``front[held]`` is the
    frontier at the current layer, ``(holds, costs, ids)``; ``pool`` the open
    blocks, as arrays sorted by q: hold and cost before the shift, q, entry id,
    block start.
    """

    def __init__(self, ch: _LocalChain, budget: int, G: list[list[float]]) -> None:
        self.ch, self.budget, self.G = ch, budget, G
        self.par, self.start, self.stop, self.ckpt = [-1], [0], [0], [False]
        empty = np.zeros(0, np.int64)
        self.pool: tuple[Any, ...] = (empty, np.zeros(0), empty, empty, empty)
        self.front = {0: (np.zeros(1, np.int64), np.zeros(1), np.zeros(1, np.int64))}
        # a replay that runs more than a block's last layer in part: a block's cost is then not
        # ``c - P[s]`` shifted by ``P_end[e]`` alone (see _pool_insert)
        self.P = np.asarray(ch.P, dtype=np.float64)
        self.O = np.asarray(ch.O, dtype=np.float64)
        self.partial_runs = ch.partial_runs
        self._open(0)

    def advance(self, e: int) -> None:
        """The frontiers at ``e``: plain layer ``e-1`` from ``e-1``, checkpointed blocks from the pool."""
        ch = self.ch
        cand: dict[int, list[tuple[Any, Any, Any, Any, bool]]] = {0: [], 1: []}
        nh = int(ch.so[e - 1])
        for held, (H, C, ids) in self.front.items():
            cand[nh].append((H + ch.plain(e - 1, held), C, ids, np.full(len(H), e - 1), False))
        PH, PC, PQ, PI, PS = self.pool
        live = int(np.searchsorted(PQ, self.budget - ch.U[e], side="right"))
        if live < len(PQ):  # the threshold only falls: drop the dead for good
            self.pool = PH, PC, PQ, PI, PS = tuple(a[:live] for a in self.pool)
        if len(PH):
            # a block that starts after the last layer its replay runs in full runs them all in part
            cost = (np.maximum(PC + ch.P_end[e], PC + self.P[PS] - self.O[PS] + ch.O_end[e]) if self.partial_runs
                    else PC + ch.P_end[e])
            cand[ch.kb[e]].append((PH + ch.X[e] + ch.ko[e], cost, PI, PS, True))
        self.front = {}
        for held, parts in cand.items():
            if parts:
                self._frontier(e, held, parts)
        if e < ch.n:
            self._open(e)

    def _frontier(self, e: int, held: int, parts: list[tuple[Any, Any, Any, Any, bool]]) -> None:
        H, C, src, st = (np.concatenate([p[i] for p in parts]) for i in range(4))
        ck = np.concatenate([np.full(len(p[0]), p[4]) for p in parts])
        ok = H + self.G[e][held] <= self.budget  # partial plans whose rest cannot fit are dropped
        if not ok.any():
            return
        H, C, src, st, ck = H[ok], C[ok], src[ok], st[ok], ck[ok]
        keep = _pareto_arrays(H, C)
        first = len(self.par)
        self.par.extend(src[keep].tolist())
        self.start.extend(st[keep].tolist())
        self.stop.extend([e] * len(keep))
        self.ckpt.extend(ck[keep].tolist())
        self.front[held] = (H[keep], C[keep], np.arange(first, first + len(keep)))

    def _open(self, e: int) -> None:
        """Every partial plan at ``e`` may start a checkpointed block there: into the pool."""
        if not self.front:
            return
        ch, front = self.ch, self.front
        NH = np.concatenate([H + ch.kappa(e, held) for held, (H, _, _) in front.items()])
        NC = np.concatenate([C - ch.P[e] for _, C, _ in front.values()])
        NQ = np.concatenate([H + ch.phi(e, held) for held, (H, _, _) in front.items()])
        NI = np.concatenate([ids for _, _, ids in front.values()])
        gap = self.P[e] - self.P[self.pool[4]] if self.partial_runs else None
        self.pool = _pool_insert(self.pool, (NH, NC, NQ, NI, np.full(len(NH), e)), gap)

    def best(self) -> tuple[tuple[Block, ...] | None, float]:
        """The cheapest complete plan (the smaller peak among equals)."""
        if not self.front:
            return None, math.inf
        H = np.concatenate([f[0] for f in self.front.values()])
        C = np.concatenate([f[1] for f in self.front.values()])
        ids = np.concatenate([f[2] for f in self.front.values()])
        i = int(ids[np.lexsort((H, C))[0]])
        blocks = []
        while i > 0:
            blocks.append(Block(self.start[i], self.stop[i], self.ckpt[i]))
            i = self.par[i]
        return tuple(blocks[::-1]), float(C.min())


def brute_force_nested_plans(profile: ChainProfile) -> list[Plan]:
    """Every plan of a short chain, checkpointed blocks nested in every way (test oracle;
    grows very fast with the number of layers: use it up to 5 or 6)."""
    n = len(profile)
    levels: dict[tuple[int, int, bool], list[tuple[Block, ...]]] = {}

    def level(s: int, e: int, inside: bool) -> list[tuple[Block, ...]]:
        """Every level covering ``s..e-1`` (inside a block: not one block covering it all)."""
        key = (s, e, inside)
        if key not in levels:
            out: list[tuple[Block, ...]] = [()] if s == e else []
            if s < e:  # a plain first layer
                out.extend((Block(s, s + 1, False),) + r for r in level(s + 1, e, False))
            for j in range(s + 1, e + 1 - inside):  # a checkpointed first block [s, j)
                rests = level(j, e, False)
                for inner in level(s, j, True):
                    nested = inner if any(b.checkpointed for b in inner) else ()
                    out.extend((Block(s, j, True, nested),) + r for r in rests)
            levels[key] = out
        return levels[key]

    return [Plan(bl, simulate_peak(profile, bl), plan_cost(profile, bl)) for bl in level(0, n, False)]


def brute_force_plans(profile: ChainProfile, allow_plain: bool = True) -> list[Plan]:
    """Every plan of a short chain (test oracle; exponential in the number of layers)."""
    n = len(profile)
    plans = []
    for cuts in itertools.product((False, True), repeat=max(n - 1, 0)):
        bounds = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [n]
        spans = list(zip(bounds[:-1], bounds[1:]))
        for flags in itertools.product((False, True), repeat=len(spans)):
            if any(not f and (b - a) > 1 for (a, b), f in zip(spans, flags)):
                continue  # plain blocks are single layers (longer ones are the same plan)
            if not allow_plain and not all(flags):
                continue
            blocks = tuple(Block(a, b, f) for (a, b), f in zip(spans, flags))
            plans.append(Plan(blocks, simulate_peak(profile, blocks), plan_cost(profile, blocks)))
    return plans


