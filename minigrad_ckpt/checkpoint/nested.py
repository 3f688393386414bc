"""Nested (multi-level) checkpoint plans with the least recomputation under a byte budget.

One level of segments cannot go below about ``2 sqrt(n)`` layers' worth of
activations.  Segments inside replayed segments reach any budget down to a
few layers, at a recompute cost that grows slowly: Griewank and Walther's
Revolve is optimal for uniform chains, and Beaumont et al.'s dynamic program
("rotor") extends it to heterogeneous ones.  This module is that dynamic
program, written for the memory model of :mod:`.model` (which the ledger
measures), so a plan it returns is checked by :func:`.model.simulate_peak`.

A *level* is a run of blocks: the plan's top level, or the inner blocks of a
checkpointed block, which run when it replays.  ``V(kind, held, L, s)[m]`` is
the least recompute work of a level covering layers ``s .. s+L-1`` whose peak
stays within ``m`` memory units above what is held below it; ``held`` says
whether layer ``s``'s input is already held there.  The level's first block is
either a plain layer ``s`` (it holds ``S_s`` while the rest runs) or a
checkpointed block ``[s, s+j)`` (it keeps ``K``: its input and constants; the
rest runs on top of ``K``; later the block replays its own level, again on top
of ``K``)::

    V(L, s)[m] = min( fwd_s  + V(L-1, s+1)[m - S_s],
                      min_j fwd_{s..s+j} + V_child(j, s)[m - K] + V(L-j, s+j)[m - K] )

A replayed level pays the forwards its replay runs (:class:`.model.LayerWork`): a
block runs in full where the rest of the level reads its output (a checkpointed one
also where it keeps its output; a checkpointed last block replays itself later); a
plain layer nothing reads -- the level's last, and those before it that only
layers not needing their input follow -- runs only what its own saved values need,
less the block's kept output.  So what follows a level's first block comes in two
kinds, one whose first layer needs its input made and one whose does not, and the
first block is costed by which follows it.  A checkpointed
block that keeps its output holds it too (``KO``): the rest of its level runs
on top of ``K + KO`` with its first input held, its own replay on top of ``K``.
The top level's forward is the training step's own, not recomputation.  Kinds: ``"top"`` (the
plan's level, only suffixes ``s + L = n``), ``"child"`` (a checkpointed
block's level: its input is held, and it may not be one block covering it all)
and ``"rest1"`` / ``"rest0"`` (what follows a level's first block, needing its
input made or not).

Memory is counted in units (the greatest common divisor of the sizes, or a
coarser unit with sizes rounded *up*, so a plan found always fits).  A chain
whose layers all hold the same arrays is solved by length alone -- ``O(n^2 M)``
work for ``M`` units, a 1,000-layer chain in about a second -- and its layers
are costed at their mean time (the plan minimizes the number of recomputed
layer forwards, Revolve's measure); otherwise states are per position,
``O(n^3 M)``, for chains up to :data:`MAX_HETEROGENEOUS_LAYERS` layers.
"""

from __future__ import annotations

import math
from functools import reduce
from typing import Any

from ..backend import host_numpy as np
from .model import (
    ChainProfile,
    LayerWork,
    _LocalChain,
    flat_min_peak_bytes,
    flat_plan_for_budget,
    plan_after_cut,
    plan_cost,
    simulate_peak,
    split_at_cut,
)
from .plans import Block, InfeasibleBudgetError, Plan, budget_in_bytes, moved

__all__ = ["plan_for_budget", "min_peak_bytes", "nested_plan_for_budget", "MAX_HETEROGENEOUS_LAYERS"]

#: Longest chain of unequal layers the nested planner takes (its tables grow as n^2).
MAX_HETEROGENEOUS_LAYERS = 200


def _max_units(n: int, uniform: bool) -> int:
    """Memory resolution: as fine as the tables' size allows (exact for small chains)."""
    if uniform:  # work ~ n^2 M
        return int(min(4096, max(16, 5e7 // max(n, 1) ** 2)))
    return int(min(8192, max(32, 3e6 // (n + 1) ** 2)))  # tables ~ n^2 M


def plan_for_budget(profile: ChainProfile, budget_bytes: int, policy: str = "Optimal") -> Plan:
    """The plan with the least recompute time whose peak fits ``budget_bytes``, nested or not.

    The one-level planner (:func:`.model.flat_plan_for_budget`) and the nested one
    (:func:`nested_plan_for_budget`) both run; the cheaper plan that fits wins, its
    figures computed by the model itself.  An infeasible budget raises
    :class:`InfeasibleBudgetError` with the smallest feasible budget.
    """
    budget = budget_in_bytes(budget_bytes, "plan_for_budget")
    if split_at_cut(profile) is not None:
        return plan_after_cut(profile, budget, plan_for_budget, policy)
    try:
        flat: Plan | None = flat_plan_for_budget(profile, budget, policy)
    except InfeasibleBudgetError:
        flat = None
    if flat is not None and flat.recompute_seconds == 0.0:
        return flat
    found = nested_plan_for_budget(profile, budget)
    if found is not None:
        nested = Plan(found[0], predicted_peak_bytes=simulate_peak(profile, found[0]),
                      recompute_seconds=plan_cost(profile, found[0]), policy=f"{policy}({budget:,} B)")
        if nested.predicted_peak_bytes <= budget and (
                flat is None or nested.recompute_seconds < flat.recompute_seconds * (1 - 1e-12)):
            return nested
    if flat is None:
        raise InfeasibleBudgetError(budget, min_peak_bytes(profile))
    return flat


def min_peak_bytes(profile: ChainProfile) -> int:
    """The smallest peak a plan reaches, nested plans included (the smallest feasible budget;
    where the nested planner works in coarse memory units, the smallest it finds)."""
    split = split_at_cut(profile)
    if split is not None:  # (what comes before the last cut, and the chain after it: see split_at_cut)
        return max(split[2], min_peak_bytes(split[3]) if len(split[3]) else 0)
    flat = flat_min_peak_bytes(profile)
    filled = _filled_tables(_recorded_part(profile)[1], flat)
    if filled is None:
        return flat
    c, tables = filled
    finite = np.flatnonzero(np.isfinite(tables.V["top"][0, c.n, 0]))
    # the fewest units a plan fits in: exact bytes when the unit divides every size
    return min(flat, int(finite[0]) * c.unit) if len(finite) else flat


def _filled_tables(profile: ChainProfile, budget: int) -> tuple[_Chain, _Tables] | None:
    """The nested planner's tables for the whole of ``profile``, in memory units that fit
    ``budget``; ``None`` where the planner does not take the chain (an empty one, shared
    constants or view layers, or too long and unequal)."""
    ch = _LocalChain.of(profile)
    if ch is None or ch.n == 0:
        return None
    uniform = _is_uniform(ch, profile)
    if not uniform and ch.n > MAX_HETEROGENEOUS_LAYERS:
        return None
    c = _Chain(ch, profile, budget, uniform)
    tables = _Tables(c)
    for L in range(1, c.n + 1):
        tables.fill(L)
    return c, tables


class _Chain:
    """Per-layer quantities of a local chain, in memory units."""

    def __init__(self, ch: _LocalChain, profile: ChainProfile, budget: int, uniform: bool) -> None:
        n = ch.n
        last = profile.layers[-1]
        a = list(ch.a) + [last.boundary_bytes[last.output_key]]
        s0 = list(ch.saved)
        s1 = [ch.plain(i, 1) for i in range(n)]
        xc = [ch.X[i + 1] - ch.X[i] for i in range(n)]
        sizes = [v for v in (*a, *s0, *s1, *xc) if v > 0]
        unit = _unit(reduce(math.gcd, sizes, 0) or 1, budget, xc, _max_units(n, uniform))

        def units(v: int) -> int:
            return -(-v // unit)

        self.n, self.unit, self.M = n, unit, budget // unit
        # A plain layer inside a checkpointed block holds its saved arrays and, for the whole of
        # the block's level, its constants (the block's segment keeps them); a constant it both
        # reads and saves counts once.  A checkpointed block keeps the constants of all its layers
        # until its backward (the segments nested in it keep theirs), and replays on top of its
        # input and the constants of its level's plain layers alone.
        dup = [sum(v for k, v in lp.local_saved.items() if k in lp.local_external) for lp in profile.layers]
        self.a = np.asarray([units(v) for v in a])
        self.c = np.asarray([units(v) for v in xc])
        self.S = {"top": (np.asarray([units(v) for v in s0]), np.asarray([units(v) for v in s1])),
                  "in": (np.asarray([units(v - d) for v, d in zip(s0, dup)]) + self.c,
                         np.asarray([units(v - d) for v, d in zip(s1, dup)]) + self.c)}
        self.XC = np.concatenate(([0], np.cumsum(self.c)))
        # a level's plain layers' constants, in units, never need to be told apart above the budget
        self.Q = int(min(self.XC[-1], self.M)) + 1
        self.so = np.asarray(ch.so, dtype=np.int64)
        # a checkpointed block ending at e keeps its output too where its last layer does
        # (``KO[e]`` units); the level after it then finds its input held (``kb[e]``)
        self.kb = np.asarray(ch.kb, dtype=np.int64)
        self.KO = np.asarray([units(v) for v in ch.ko])
        self.uniform = uniform
        self._replay_work(LayerWork.seconds(profile))

    def _replay_work(self, work: LayerWork) -> None:
        """A plain layer's forward seconds in a replay: ``t`` where the rest of its level reads its
        output, ``t_own`` where nothing does, ``t_last`` where it ends the level -- and whether it
        then needs its input made (``own_wants``, ``last_wants``).  A uniform chain's layers are
        costed at their mean (its plan minimizes recomputed layer forwards, Revolve's measure)."""
        def seconds(values: list[float]) -> Any:
            t = np.asarray(values, dtype=np.float64)
            return np.full(self.n, t.mean()) if self.uniform and self.n else t

        self.t, self.t_own, self.t_last = seconds(work.full), seconds(work.own), seconds(work.last)
        self.own_wants = np.asarray(work.own_wants, dtype=bool)
        self.last_wants = np.asarray(work.last_wants, dtype=bool)
        self.T = np.concatenate(([0.0], np.cumsum(self.t)))
        # the levels whose first layer does not want its input, where some layer can be one
        self.rests = ("rest1", "rest0") if not (self.own_wants.all() and self.last_wants.all()) else ("rest1",)

    def saved(self, kind: str, held: int) -> Any:
        """``S`` of each layer as a plain layer of a level of ``kind``, its input held or not."""
        return self.S["top" if kind == "top" else "in"][held]

    def constants(self, start: Any, stop: Any) -> Any:
        """The constants a checkpointed block ``[start, stop)`` keeps until its backward."""
        return self.XC[stop] - self.XC[start]


def _unit(unit: int, budget: int, constants: list[int], most: int) -> int:
    """The memory unit: ``unit`` (the sizes' greatest common divisor) where the tables stay within
    ``most`` cells a row, else the smallest coarser one that does (sizes rounded up, so plans
    still fit).  A level's tables have a column per unit of budget and, where the chain reads
    constants, a row per unit of its plain layers' constants (see :class:`_Tables`)."""
    def cells(u: int) -> int:
        m = budget // u
        return (m + 1) * (min(sum(-(-v // u) for v in constants), m) + 1)

    if budget // unit > most:
        unit = -(-budget // most)
    if cells(unit) <= most + 1 or not any(constants):
        return unit
    lo, hi = unit, max(budget, 1) + 1  # cells(hi) == 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if cells(mid) > most + 1 else (lo, mid)
    return lo


def _is_uniform(ch: _LocalChain, profile: ChainProfile) -> bool:
    """Every layer holds the same arrays (sizes and kinds), and every boundary is alike."""
    layers = profile.layers
    sig = {(ch.a[i], ch.saved[i], ch.si[i], ch.so[i], ch.X[i + 1] - ch.X[i], layers[i].own_work()[1:],
            layers[i].last_work()[1:], layers[i].keeps_output)
           for i in range(ch.n)}
    return len(sig) == 1 and layers[-1].boundary_bytes[layers[-1].output_key] == ch.a[0]


class _Tables:
    """The dynamic program's values and choices, filled for lengths 1, 2, ..., n.

    ``V[kind][held]`` is an array ``(length, row, unit)``; a row is a start position
    (one row only for a uniform chain, and for the top level, whose lengths fix
    their start).  What follows a replayed level's first block comes in two kinds:
    ``"rest1"``, whose first layer needs its input made (so the first block runs in
    full), and ``"rest0"``, whose does not (a plain first layer runs only what its own
    saved values need, a checkpointed one nothing).  ``C`` holds the choices: ``2 j +
    f``, ``j`` 0 for a plain layer or the length of a checkpointed block, ``f`` 1 where
    the rest after it is a ``"rest0"``.

    Constants make a rest's value two-dimensional.  Inside a checkpointed block, its plain
    layers' constants are held for the whole level -- also while the checkpointed blocks
    ahead of them replay -- but a nested checkpointed block's constants go with its own
    backward, before those ahead of it replay.  So a checkpointed first block replays on top
    of the rest's plain layers' constants, which the rest's peak alone does not tell: a
    rest's tables have an axis more, ``(length, row, q, unit)``, the least work where those
    constants take at most ``q`` units, and ``Q`` holds the ``q`` a checkpointed first block
    left its rest (``Q`` rows: one where the chain reads no constant).
    """

    def __init__(self, c: _Chain) -> None:
        self.c = c
        self.kinds = ("top", "child", *c.rests)
        rows = 1 if c.uniform else c.n + 1
        shape = {k: (c.n + 1, 1 if k == "top" else rows) + ((c.Q,) if self.has_q(k) else ()) + (c.M + 1,)
                 for k in self.kinds}
        self.V = {k: np.full((2,) + shape[k], np.inf) for k in self.kinds}
        for k in self.kinds:
            self.V[k][:, 0] = 0.0  # an empty level costs nothing and holds nothing
        self.C = {k: np.zeros((2,) + shape[k], dtype=np.int32) for k in self.kinds}
        self.Q = {k: np.zeros((2,) + shape[k], dtype=np.int32) for k in self.kinds}

    @staticmethod
    def has_q(kind: str) -> bool:
        """Whether a level of ``kind`` is valued by its plain layers' constants too (a rest)."""
        return kind in ("rest1", "rest0")

    def positions(self, kind: str, L: int) -> Any:
        if kind == "top":
            return np.asarray([self.c.n - L])
        return np.asarray([0]) if self.c.uniform else np.arange(self.c.n - L + 1)

    def row(self, kind: str, s: Any) -> Any:
        """Row indices of start positions ``s`` in the tables of ``kind``."""
        return np.zeros_like(s) if kind == "top" or self.c.uniform else s

    def follows(self, kind: str) -> tuple[str, ...]:
        """The kinds of what follows the first block of a level of ``kind``."""
        return ("top",) if kind == "top" else self.c.rests

    def fill(self, L: int) -> None:
        self._solve("child", 1, L)
        for held in (0, 1):
            for kind in (*self.c.rests, "top"):
                self._solve(kind, held, L)

    def _solve(self, kind: str, held: int, L: int) -> None:
        c = self.c
        s = self.positions(kind, L)
        m = np.arange(c.M + 1)
        best = np.full((len(s),) + self.V[kind].shape[3:], np.inf)
        choice = np.zeros(best.shape, dtype=np.int32)
        qs = np.zeros(best.shape, dtype=np.int32)
        follows = self.follows(kind) if L > 1 else self.follows(kind)[:1]
        options = [(0, f, self._plain_first(kind, held, L, s, follow, m), 0) for f, follow in enumerate(follows)]
        for j, f, val, q in options + self._checkpointed_first(kind, held, L, s, m):
            better = val < best - 1e-12
            best = np.where(better, val, best)
            choice = np.where(better, 2 * j + f, choice)
            qs = np.where(better, q, qs)
        self.V[kind][held, L, self.row(kind, s)] = best
        self.C[kind][held, L, self.row(kind, s)] = choice
        self.Q[kind][held, L, self.row(kind, s)] = qs

    def _plain_first(self, kind: str, held: int, L: int, s: Any, follow: str, m: Any) -> Any:
        """The level's value with a plain first layer ``s``: it holds ``S_s`` (and, inside a
        checkpointed block, its constants) while ``follow`` runs, and in a replay costs what it
        runs -- in full where the rest reads its output."""
        c = self.c
        sub = self.V[follow][c.so[s], L - 1, self.row(follow, s + 1)]
        if kind == "child":  # the whole level's peak counts its constants: any the rest's may take
            sub = sub[:, -1]
        hold = c.saved(kind, held)[s]
        if self.has_q(kind):  # its constants are the level's plain layers' too
            val = _shifted_q(_shifted(sub, hold[:, None, None], m), c.c[s])
        else:
            val = _shifted(sub, hold[:, None], m)
        if kind == "top":
            return val
        if L == 1:
            cost, wants = c.t_last[s], c.last_wants[s]
        elif follow == "rest1":
            cost, wants = c.t[s], np.ones(len(s), dtype=bool)
        else:
            cost, wants = c.t_own[s], c.own_wants[s]
        per_row = (-1,) + (1,) * (val.ndim - 1)
        val = val + cost.reshape(per_row)
        if kind in ("rest0", "rest1"):  # a rest wants its input, or not, as its kind says
            val = np.where((wants == (kind == "rest1")).reshape(per_row), val, np.inf)
        return val

    def _checkpointed_first(self, kind: str, held: int, L: int, s: Any, m: Any) -> list[tuple[Any, Any, Any, Any]]:
        """``[(j, f, value, q)]``: the best checkpointed first block ``[s, s+j)``, the kind of rest
        after it, the level's value with them, and the units of constants the rest's plain layers
        may hold (none in a ``"rest0"``: the block replays from its input, which the replay makes).

        The rest runs on top of ``K``: the block's input and every constant of its layers, and its
        kept output.  The block replays its level on top of its input and of the rest's plain
        layers' constants (its own level's are in that level's value)."""
        c = self.c
        J = L - (kind == "child")  # a child level is not one block covering it all
        if J < 1 or kind == "rest0":
            return []
        j = np.arange(1, J + 1)[:, None]                     # (J, 1)
        sj = s[None, :] + j                                  # (J, P): where the rest starts
        k_in = (0 if held else 1) * c.a[s][None, :] + 0 * sj  # (J, P): its input, where not held
        k_rest = k_in + c.constants(s[None, :], sj) + c.KO[sj]
        child = self.V["child"][1][j[:, 0]][:, self.row("child", s)]  # (J, P, M+1)
        follow = self.follows(kind)[0]  # "top", or "rest1"
        rest = self.V[follow][c.kb[sj], L - j, self.row(follow, sj)]  # (J, P[, Q], M+1)
        if kind == "top":  # no plain layer of the top level holds a constant
            best = _shifted(child, k_in[..., None], m) + _shifted(rest, k_rest[..., None], m)
            jbest = np.argmin(best, axis=0)                  # (P, M+1)
            return [(jbest + 1, 0, np.take_along_axis(best, jbest[None], axis=0)[0], 0)]
        # a block but the last runs in this level's replay where the rest reads its output ("rest1"),
        # or where it keeps its output (an inner block's kept result is made by its parent's replay)
        ran = (j < L) * (c.T[sj] - c.T[s][None, :])           # (J, P)
        best = _joined(child, k_in, rest, k_rest, m) + ran[..., None, None]   # (J, P, Q, M+1)
        follow_of = np.zeros(best.shape, dtype=np.int32)
        if "rest0" in c.rests:
            self._before_rest0(best, follow_of, child, k_in, k_rest, j, sj, L, ran * (c.kb[sj] == 1), m)
        # the constants the rest's plain layers hold: at most q where the level's may hold q
        best, (follow_of, q) = _least_along(best, follow_of, axis=2, upto=kind != "child")
        jbest = np.argmin(best, axis=0)
        pick = [np.take_along_axis(a, jbest[None], axis=0)[0] for a in (best, follow_of, q)]
        return [(jbest + 1, pick[1], pick[0], pick[2])]

    def _before_rest0(self, best: Any, follow_of: Any, child: Any, k_in: Any, k_rest: Any, j: Any, sj: Any, L: int,
                      ran: Any, m: Any) -> None:
        """``best`` (and ``follow_of``) lowered where a checkpointed first block followed by a
        ``"rest0"`` is cheaper: looked at only where the rest's first layer can leave its input
        unmade (elsewhere ``"rest0"`` holds nothing finite)."""
        c = self.c
        rest_len = L - j + 0 * sj                             # (J, P)
        can = np.where(rest_len == 1, ~c.last_wants[np.minimum(sj, c.n - 1)], ~c.own_wants[np.minimum(sj, c.n - 1)])
        jj, pp = np.nonzero(can & (rest_len >= 1))
        if not len(jj):
            return
        at = sj[jj, pp]
        rest = self.V["rest0"][c.kb[at], rest_len[jj, pp], self.row("rest0", at)]     # (Q', Q, M+1)
        val = _joined(child[jj, pp], k_in[jj, pp], rest, k_rest[jj, pp], m) + ran[jj, pp][:, None, None]
        better = val < best[jj, pp] - 1e-12
        best[jj, pp] = np.where(better, val, best[jj, pp])
        follow_of[jj, pp] = np.where(better, 1, follow_of[jj, pp])


def _joined(child: Any, k_in: Any, rest: Any, k_rest: Any, m: Any) -> Any:
    """``[..., q, m]``: a checkpointed first block's replayed level (``child``, by units) within
    ``m - k_in - q`` and the rest (``rest``, by ``q`` and units) within ``m - k_rest``, the rest's
    plain layers' constants taking at most ``q`` units."""
    Q = rest.shape[-2]
    if Q == 1:
        replay = _shifted(child, k_in[..., None], m)[..., None, :]
    else:
        idx = m[None, :] - np.arange(Q)[:, None] - k_in[..., None, None]
        replay = np.take_along_axis(child[..., None, :], np.clip(idx, 0, None), axis=-1)
        replay = np.where(idx >= 0, replay, np.inf)
    return replay + _shifted(rest, k_rest[..., None, None], m)


def _least_along(values: Any, payload: Any, axis: int, upto: bool) -> tuple[Any, tuple[Any, Any]]:
    """The least of ``values`` along ``axis`` (the ``q`` axis), with ``payload`` and the index where
    it is; ``upto``: for each ``q`` the least at an index ``<= q`` (the axis kept), else the least
    of all (the axis gone)."""
    if values.shape[axis] == 1:  # (a chain that reads no constant: nothing to choose)
        if upto:
            return values, (payload, np.zeros(values.shape, dtype=np.int32))
        values = values.squeeze(axis)
        return values, (payload.squeeze(axis), np.zeros(values.shape, dtype=np.int32))
    if not upto:
        at = np.expand_dims(np.argmin(values, axis=axis), axis)
        return (np.take_along_axis(values, at, axis).squeeze(axis),
                (np.take_along_axis(payload, at, axis).squeeze(axis), at.squeeze(axis)))
    values, payload = np.moveaxis(values, axis, 0).copy(), np.moveaxis(payload, axis, 0).copy()
    where = np.zeros(values.shape, dtype=np.int32)
    for q in range(1, len(values)):
        better = values[q - 1] < values[q] - 1e-12
        values[q] = np.where(better, values[q - 1], values[q])
        payload[q] = np.where(better, payload[q - 1], payload[q])
        where[q] = np.where(better, where[q - 1], q)
    return np.moveaxis(values, 0, axis), (np.moveaxis(payload, 0, axis), np.moveaxis(where, 0, axis))


def _shifted_q(values: Any, shift: Any) -> Any:
    """``values[p, q - shift[p], :]``, infinite where ``q < shift[p]``: a plain layer's constants
    added to those of the rest after it."""
    if not np.any(shift):
        return values
    idx = np.arange(values.shape[1])[None, :, None] - shift[:, None, None]
    out = np.take_along_axis(values, np.clip(idx, 0, None), axis=1)
    return np.where(idx >= 0, out, np.inf)


def _shifted(values: Any, shift: Any, m: Any) -> Any:
    """``values[..., m - shift]`` along the last axis, infinite where ``m < shift``."""
    first = int(np.ravel(shift)[0]) if np.size(shift) else 0
    if np.all(shift == first):  # one shift for all (a uniform chain): a slice
        out = np.full(np.broadcast_shapes(values.shape, np.shape(shift)[:-1] + (len(m),)), np.inf)
        if first < len(m):
            out[..., max(first, 0):] = values[..., :len(m) - max(first, 0)]
        return out
    idx = m - shift
    out = np.take_along_axis(values, np.clip(idx, 0, None), axis=-1)
    return np.where(idx >= 0, out, np.inf)


def nested_plan_for_budget(profile: ChainProfile, budget: int) -> tuple[tuple[Block, ...], float] | None:
    """The nested plan with the least recompute work whose peak, in the model, fits
    ``budget`` (``None`` if none does, or the chain is not one this planner takes:
    shared constants or view layers, or too long and unequal)."""
    if budget < 0:  # no plan holds fewer than zero bytes (and the tables have no column for it)
        return None
    skipped, profile = _recorded_part(profile)
    filled = _filled_tables(profile, budget)
    if filled is None:
        return None
    c, tables = filled
    work = float(tables.V["top"][0, c.n, 0, c.M])
    if not math.isfinite(work):
        return None
    leading = tuple(Block(i, i + 1, False) for i in range(skipped))
    return leading + moved(_read_back(tables, c, c.M), skipped), work


def _recorded_part(profile: ChainProfile) -> tuple[int, ChainProfile]:
    """``(r, the chain from layer r)`` where its first ``r`` layers recorded no op and all after
    them did (``(0, profile)`` otherwise).  Those layers hold nothing run plainly and never replay,
    and a block over them keeps what a block from ``r`` keeps (``ChainProfile.kept_input``): every
    plan costs and holds what the same plan with them plain does, so the best plan is theirs plain
    and the best one of the rest."""
    layers = profile.layers
    r = next((i for i, lp in enumerate(layers) if lp.recorded), len(layers))
    if r == 0 or not all(lp.recorded for lp in layers[r:]):
        return 0, profile
    return r, ChainProfile(layers[r:])


def _read_back(tables: _Tables, c: _Chain, units: int) -> tuple[Block, ...]:
    """The plan behind the top level's value, levels read iteratively, blocks nested as chosen."""

    def level(kind: str, held: int, L: int, s: int, m: int, q: int = c.Q - 1) -> list[Block]:
        out = []
        while L > 0:
            at = (held, L, int(tables.row(kind, np.asarray([s]))[0])) + ((q,) if tables.has_q(kind) else ()) + (m,)
            code, q_rest = int(tables.C[kind][at]), int(tables.Q[kind][at])
            j, follow = code >> 1, tables.follows(kind)[code & 1]
            if j == 0:
                out.append(Block(s, s + 1, False))
                m -= int(c.saved(kind, held)[s])
                q = q - int(c.c[s]) if tables.has_q(kind) else c.Q - 1
                held, s, L = int(c.so[s]), s + 1, L - 1
            else:
                k_in = 0 if held else int(c.a[s])
                # the replayed level runs on top of the rest's plain layers' constants (none at the top)
                q = q_rest if kind != "top" else 0
                inner = level("child", 1, j, s, m - k_in - q)  # depth is bounded by the memory units
                nested = any(b.checkpointed for b in inner)
                out.append(Block(s, s + j, True, tuple(inner) if nested else ()))
                m -= k_in + int(c.constants(s, s + j)) + int(c.KO[s + j])
                held, s, L = int(c.kb[s + j]), s + j, L - j
            kind = follow
        return out

    return tuple(level("top", 0, c.n, 0, units))
