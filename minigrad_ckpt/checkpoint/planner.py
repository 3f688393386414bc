"""Planning where to checkpoint a chain of layers, from measurements.

A *plan* splits layers ``0..n-1`` into blocks; each block is either run
normally (*plain*: its nodes keep their saved values) or *checkpointed* (its
nodes keep nothing; the block keeps its input and any constants, and is
replayed once in backward).

The memory model (what the ledger in :mod:`minigrad_ckpt.memory` counts):

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

:func:`profile_chain` measures the model once (bytes exact, forward time per
layer measured), :func:`simulate_peak` evaluates the model for any plan,
:func:`pareto_plans` finds every plan that is optimal in (peak, recompute
time) by dynamic programming over block boundaries, and :func:`plan_for_budget`
picks the cheapest one under a byte budget.  :func:`brute_force_plans`
enumerates all plans of a short chain: the test oracle.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import random as _random
from ..grad_mode import enable_grad, set_recorder
from ..grad_mode import state as _grad_state
from ..memory import _base, is_parameter_edge, saved_arrays
from ..tape import FREED
from ..tensor import Tensor

__all__ = [
    "Block", "Plan", "LayerProfile", "ChainProfile", "profile_chain", "simulate_peak", "pareto_plans",
    "plan_for_budget", "brute_force_plans", "uniform_plan", "revolve_extra_forwards", "revolve_closed_form",
    "InfeasibleBudgetError",
]


class InfeasibleBudgetError(ValueError):
    """No plan fits the byte budget; ``smallest_feasible_bytes`` says what would."""

    def __init__(self, budget: int, smallest: int) -> None:
        super().__init__(
            f"no checkpoint plan keeps peak activation memory within {budget:,} bytes; the smallest "
            f"feasible budget for this model and input is {smallest:,} bytes"
        )
        self.budget, self.smallest_feasible_bytes = budget, smallest


@dataclass(frozen=True)
class Block:
    """Layers ``start .. stop-1``, checkpointed or plain."""

    start: int
    stop: int
    checkpointed: bool


@dataclass
class Plan:
    """Blocks covering every layer in order, with the model's predictions."""

    blocks: tuple[Block, ...]
    predicted_peak_bytes: int | None = None
    recompute_seconds: float | None = None
    policy: str = ""

    @property
    def n_layers(self) -> int:
        return self.blocks[-1].stop if self.blocks else 0

    @property
    def segments(self) -> list[tuple[int, int]]:
        """``(start, stop)`` of the checkpointed blocks."""
        return [(b.start, b.stop) for b in self.blocks if b.checkpointed]

    def describe(self) -> str:
        """``[0:4]* [4:8]* [8:10]``: checkpointed blocks starred, plain layers merged into ranges."""
        parts = []
        plain_from = None
        for b in self.blocks + (Block(self.n_layers, self.n_layers, True),):
            if not b.checkpointed:
                plain_from = b.start if plain_from is None else plain_from
                continue
            if plain_from is not None:
                parts.append(f"[{plain_from}:{b.start}]")
                plain_from = None
            if b.stop > b.start:
                parts.append(f"[{b.start}:{b.stop}]*")
        peak = "" if self.predicted_peak_bytes is None else f", predicted peak {self.predicted_peak_bytes:,} B"
        return f"Plan({self.policy or 'custom'}: {' '.join(parts)} (* = checkpointed){peak})"

    __str__ = describe


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

    def kept_items(self, start: int, stop: int) -> dict[Any, int]:
        """``K``: what a checkpointed block keeps to replay from."""
        first = self.layers[start]
        items: dict[Any, int] = {("B", first.input_key): first.boundary_bytes[first.input_key]}
        for lp in self.layers[start:stop]:
            for k, v in lp.local_external.items():
                items[("L", k)] = v
        return items

    def recompute_seconds(self, start: int, stop: int) -> float:
        return sum(lp.forward_seconds for lp in self.layers[start:stop])


def _bytes(items: dict[Any, int]) -> int:
    return sum(items.values())


def simulate_peak(profile: ChainProfile, plan: Plan | Sequence[Block]) -> int:
    """The peak bytes the ledger will measure for ``plan`` (the exact memory model)."""
    blocks = plan.blocks if isinstance(plan, Plan) else tuple(plan)
    holds: list[dict[Any, int]] = []
    fulls: list[dict[Any, int] | None] = []
    for b in blocks:
        saved: dict[Any, int] = {}
        for lp in profile.layers[b.start:b.stop]:
            saved.update(lp.saved_items())
        if b.checkpointed:
            kept = profile.kept_items(b.start, b.stop)
            holds.append(kept)
            fulls.append({**kept, **saved})
        else:
            holds.append(saved)
            fulls.append(None)
    everything: dict[Any, int] = {}
    for h in holds:
        everything.update(h)
    peak = _bytes(everything)
    prefix: dict[Any, int] = {}
    for h, f in zip(holds, fulls):
        if f is not None:
            peak = max(peak, _bytes({**prefix, **f}))
        prefix.update(h)
    return peak


def plan_cost(profile: ChainProfile, blocks: Sequence[Block]) -> float:
    return sum(profile.recompute_seconds(b.start, b.stop) for b in blocks if b.checkpointed)


def pareto_plans(profile: ChainProfile, allow_plain: bool = True,
                 max_block: int | None = None) -> list[Plan]:
    """Every plan not beaten in both peak memory and recompute time, by peak.

    Dynamic programming over suffixes: ``F(s, held)`` is the frontier of
    ``(peak, cost)`` for layers ``s..n-1`` counted above what the prefix
    holds, where ``held`` is the set of arrays the prefix already holds that
    the suffix may hold too -- the input ``b[s-1]`` (also through view layers)
    and constants shared by several layers -- so no array is counted twice.
    The set is small in practice (2^k states for k shared constants).  A block starting
    at ``s`` is a plain layer (adds its ``S_s`` to everything after it) or a
    checkpointed ``[s..e]`` (adds ``K`` to everything after it, and peaks at
    ``K + S_s..S_e`` during its replay).  O(n^2) blocks times frontier sizes.
    """
    n = len(profile)
    layers = profile.layers
    memo: dict[tuple[int, frozenset], list[tuple[int, float, tuple[Block, ...]]]] = {}
    # Arrays held by more than one layer besides the boundaries (a constant several layers
    # read): the state carries which of them the prefix already holds, so each counts once.
    seen: dict[Any, int] = {}
    for lp in layers:
        for k in {*lp.local_saved, *lp.local_external}:
            seen[("L", k)] = seen.get(("L", k), 0) + 1
    shared = frozenset(k for k, c in seen.items() if c > 1)

    def frontier(s: int, held: frozenset) -> list[tuple[int, float, tuple[Block, ...]]]:
        # ``held``: the items later layers may also hold that the prefix already holds
        if s == n:
            return [(0, 0.0, ())]
        key = (s, held)
        if key in memo:
            return memo[key]
        in_key = ("B", layers[s].input_key)
        held_shared = held & shared
        options: list[tuple[int, float, tuple[Block, ...]]] = []
        if allow_plain:
            items = layers[s].saved_items()
            for k in held:
                items.pop(k, None)
            h = _bytes(items)
            blk = Block(s, s + 1, False)
            lp = layers[s]  # its output is held if it saves it, or if it is a view of a held input
            out_held = lp.saves_output or (lp.output_key == lp.input_key and (in_key in held or lp.saves_input))
            nxt = held_shared | (shared & items.keys()) | ({("B", lp.output_key)} if out_held else set())
            for p, c, rest in frontier(s + 1, frozenset(nxt)):
                options.append((h + p, c, (blk,) + rest))
        stop_max = n if max_block is None else min(n, s + max_block)
        for e in range(s + 1, stop_max + 1):
            kept = profile.kept_items(s, e)
            full = dict(kept)
            for lp in layers[s:e]:
                full.update(lp.saved_items())
            for k in held:
                kept.pop(k, None)
                full.pop(k, None)
            k, f = _bytes(kept), _bytes(full)
            cost = profile.recompute_seconds(s, e)
            blk = Block(s, e, True)
            # the block keeps its input; its output is that same buffer if its layers are all views
            nxt = held_shared | (shared & kept.keys())
            if layers[e - 1].output_key == layers[s].input_key:
                nxt = nxt | {in_key}
            for p, c, rest in frontier(e, frozenset(nxt)):
                options.append((max(k + p, f), cost + c, (blk,) + rest))
        memo[key] = _pareto(options)
        return memo[key]

    return [Plan(blocks, predicted_peak_bytes=p, recompute_seconds=c) for p, c, blocks in frontier(0, frozenset())]


def _pareto(options: list[tuple[int, float, tuple[Block, ...]]]) -> list[tuple[int, float, tuple[Block, ...]]]:
    """Keep the options that no other option beats in both peak and cost."""
    options.sort(key=lambda o: (o[0], o[1], len(o[2])))
    out = []
    best_cost = math.inf
    for o in options:
        if o[1] < best_cost - 1e-15:
            out.append(o)
            best_cost = o[1]
    return out


def plan_for_budget(profile: ChainProfile, budget_bytes: int, policy: str = "Optimal") -> Plan:
    """The plan with the least recompute time whose peak fits ``budget_bytes``."""
    frontier = pareto_plans(profile)
    feasible = [p for p in frontier if p.predicted_peak_bytes <= budget_bytes]
    if not feasible:
        raise InfeasibleBudgetError(int(budget_bytes), min(p.predicted_peak_bytes for p in frontier))
    best = min(feasible, key=lambda p: (p.recompute_seconds, p.predicted_peak_bytes))
    best.policy = f"{policy}({int(budget_bytes):,} B)"
    # The DP's peak equals the exact model's (the tests check it); the figure
    # reported is recomputed from the model itself, the single source of truth.
    best.predicted_peak_bytes = simulate_peak(profile, best)
    return best


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


def uniform_plan(n_layers: int, n_segments: int, checkpoint_last: bool = False, policy: str = "") -> Plan:
    """``n_segments`` blocks of (nearly) equal length; the last one plain unless asked."""
    n_segments = max(1, min(n_segments, n_layers))
    size = math.ceil(n_layers / n_segments)
    starts = list(range(0, n_layers, size))
    blocks = []
    for i, s in enumerate(starts):
        e = min(s + size, n_layers)
        last = i == len(starts) - 1
        blocks.append(Block(s, e, checkpoint_last or not last))
    return Plan(tuple(_split_plain(blocks)), policy=policy)


def plan_from_starts(n_layers: int, starts: Sequence[int], policy: str = "") -> Plan:
    """Checkpointed blocks starting at ``starts`` (0 is implied); the last block plain."""
    cuts = sorted({0, *(int(s) for s in starts if 0 <= int(s) < n_layers)})
    blocks = []
    for i, s in enumerate(cuts):
        e = cuts[i + 1] if i + 1 < len(cuts) else n_layers
        blocks.append(Block(s, e, i + 1 < len(cuts)))
    return Plan(tuple(_split_plain(blocks)), policy=policy)


def _split_plain(blocks: list[Block]) -> list[Block]:
    out = []
    for b in blocks:
        if b.checkpointed:
            out.append(b)
        else:
            out.extend(Block(i, i + 1, False) for i in range(b.start, b.stop))
    return out


def coarsen(plan: Plan, max_checkpoints: int) -> Plan:
    """Merge neighbouring checkpointed blocks until at most ``max_checkpoints`` remain.

    Merging keeps every value recoverable (a bigger block replays more); it
    only trades memory for fewer kept inputs.
    """
    if max_checkpoints < 1:
        raise ValueError(f"max_checkpoints must be at least 1, got {max_checkpoints}")
    blocks = list(plan.blocks)
    while sum(b.checkpointed for b in blocks) > max_checkpoints:
        best = None
        for i in range(len(blocks) - 1):
            a, b = blocks[i], blocks[i + 1]
            if a.checkpointed and b.checkpointed:
                size = (b.stop - a.start)
                if best is None or size < best[0]:
                    best = (size, i)
        if best is None:  # checkpointed blocks are separated by plain ones: absorb them
            i = next(i for i, b in enumerate(blocks) if b.checkpointed)
            j = next(j for j in range(i + 1, len(blocks)) if blocks[j].checkpointed)
            blocks[i:j + 1] = [Block(blocks[i].start, blocks[j].stop, True)]
            continue
        i = best[1]
        blocks[i:i + 2] = [Block(blocks[i].start, blocks[i + 1].stop, True)]
    return Plan(tuple(blocks), policy=f"{plan.policy} (max {max_checkpoints} checkpoints)")


# ---------------------------------------------------------------- profiling
class _Profiler:
    """Recorder used during profiling: tags each node with its layer, keeps saved values."""

    def __init__(self) -> None:
        self.layer = -1
        self.nodes: list[list[Any]] = []
        self.consumed: list[list[tuple[Any, bool, Any]]] = []

    def record(self, node: Any, args: tuple, arrays: list, out: Any) -> None:
        self.nodes[self.layer].append(node)
        for a, v in zip(args, arrays):
            if not hasattr(v, "nbytes"):
                continue
            is_param = isinstance(a, Tensor) and (a._rg if a._node is None else is_parameter_edge(a._node))
            producer = a._node if isinstance(a, Tensor) else None
            self.consumed[self.layer].append((v, is_param, producer))


def profile_chain(layers: Sequence[Callable[[Any], Any]], x: Any, repeats: int = 2) -> ChainProfile:
    """Run ``layers`` on ``x`` and measure what each holds (bytes) and costs (seconds)."""
    times = [math.inf] * len(layers)
    profile = None
    # Profiling runs the layers, which may draw random keys (dropout): put the
    # generator back afterwards, so planning leaves no trace in the results.
    rng_state = _random.get_rng_state()
    # Module buffers too (BatchNorm's running statistics): profiling is not a training step.
    buffers = [(b, b._data.copy()) for layer in layers if callable(getattr(layer, "buffers", None))
               for b in layer.buffers() if b is not None]
    try:
        profile = _profile_runs(layers, x, repeats, times)
    finally:
        _random.set_rng_state(rng_state)
        for b, v in buffers:
            b._data[...] = v
    for lp, t in zip(profile.layers, times):
        lp.forward_seconds = t
    return profile


def _profile_runs(layers: Sequence[Callable[[Any], Any]], x: Any, repeats: int, times: list[float]) -> ChainProfile:
    profile = None
    for _ in range(max(1, repeats)):
        prof = _Profiler()
        outer = _grad_state.recorder
        if outer is not None:
            raise RuntimeError("profile_chain cannot run inside a checkpointed segment")
        boundaries = [x]
        with enable_grad():
            set_recorder(prof)
            try:
                h = x
                for i, layer in enumerate(layers):
                    prof.layer = i
                    prof.nodes.append([])
                    prof.consumed.append([])
                    t0 = time.perf_counter()
                    h = layer(h)
                    times[i] = min(times[i], time.perf_counter() - t0)
                    boundaries.append(h)
            finally:
                set_recorder(outer)
        if profile is None:
            profile = _classify(prof, boundaries)
    return profile


def _classify(prof: _Profiler, boundaries: list[Any]) -> ChainProfile:
    keys: dict[int, int] = {}

    def key(a: Any) -> int:
        return keys.setdefault(id(_base(a)), len(keys))

    bkeys = []
    bbytes: dict[int, int] = {}
    for t in boundaries:
        arr = t.data if isinstance(t, Tensor) else t
        k = key(arr)
        bkeys.append(k)
        # an input that is a parameter (a leaf that requires grad) is not counted, as in the ledger
        param = isinstance(t, Tensor) and (t._rg if t._node is None else is_parameter_edge(t._node))
        bbytes[k] = 0 if param else int(_base(arr).nbytes)
    layers = []
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
        for n in nodes:  # values no longer needed: the profile keeps only sizes
            n.saved = FREED
        layers.append(lp)
    return ChainProfile(layers)


# ---------------------------------------------------------------- Revolve
def revolve_extra_forwards(n: int, s: int) -> int:
    """Griewank's ``p(n, s)``: the fewest extra forward steps to reverse a uniform chain
    of ``n`` steps with ``s`` snapshots (multi-level, binomial checkpointing)."""
    if n < 1 or s < 1:
        raise ValueError("revolve needs n >= 1 steps and s >= 1 snapshots")
    memo: dict[tuple[int, int], int] = {}

    def p(n: int, s: int) -> int:
        if n == 1:
            return 0
        if s == 1:
            return n * (n - 1) // 2
        s = min(s, n - 1)
        if (n, s) in memo:
            return memo[(n, s)]
        best = min(i + p(i, s) + p(n - i, s - 1) for i in range(1, n))
        memo[(n, s)] = best
        return best

    return p(n, s)


def revolve_closed_form(n: int, s: int) -> int:
    """Revolve's Proposition 1: ``p(n, s) = t n - beta(s + 1, t - 1)`` with
    ``beta(s, t) = C(s + t, s)`` and ``t`` the unique integer with
    ``beta(s, t - 1) < n <= beta(s, t)``."""
    if n < 1 or s < 1:
        raise ValueError("revolve needs n >= 1 steps and s >= 1 snapshots")
    s = min(s, max(n - 1, 1))
    if n == 1:
        return 0

    def beta(s: int, t: int) -> int:
        return math.comb(s + t, s)

    t = 0
    while beta(s, t) < n:
        t += 1
    return t * n - beta(s + 1, t - 1)
