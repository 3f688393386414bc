"""Revolve: multi-level (binomial) checkpointing of a uniform chain, as a count.

Griewank and Walther's Revolve reverses a chain of ``n`` equal steps holding at
most ``s`` snapshots at once, and needs the fewest extra forward steps of any
schedule.  The two functions here compute that number two independent ways --
the recursion that defines it and the paper's closed form -- so each checks
the other.  The planner proper (:mod:`.model`) handles unequal layers with a
byte budget; Revolve is the reference point for the uniform case.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["revolve_extra_forwards", "revolve_closed_form"]


def _steps_and_snapshots(n: object, s: object) -> tuple[int, int]:
    """``n`` and ``s`` as whole numbers >= 1 (NumPy's integers too; never a float, a string or a bool)."""
    for value in (n, s):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"revolve counts steps and snapshots in whole numbers, got {type(value).__name__} "
                            f"{value!r}")
    if n < 1 or s < 1:
        raise ValueError("revolve needs n >= 1 steps and s >= 1 snapshots")
    return int(n), int(s)


def revolve_extra_forwards(n: int, s: int) -> int:
    """Griewank's ``p(n, s)``: the fewest extra forward steps to reverse a uniform chain
    of ``n`` steps with ``s`` snapshots (multi-level, binomial checkpointing).

    ``p(1, s) = 0``, ``p(n, 1) = n(n-1)/2`` and otherwise
    ``p(n, s) = min_i i + p(i, s) + p(n - i, s - 1)``: advance ``i`` steps, put a
    snapshot there, reverse the right part with one snapshot fewer, then the left
    part with all of them.  Filled in as a table, bottom up -- no recursion, so
    any ``n`` works (the cost is ``O(n^2 s)``).
    """
    n, s = _steps_and_snapshots(n, s)
    s = min(s, max(n - 1, 1))  # more snapshots than steps - 1 never help
    # rows[j][m] = p(m, j + 1), with the snapshot count clamped to m - 1 as above
    rows: list[list[int]] = []

    def p(m: int, snaps: int) -> int:
        return 0 if m == 1 else rows[min(snaps, m - 1) - 1][m]

    for j in range(s):
        row = [0, 0]
        rows.append(row)  # filled left to right: p(i, j + 1) for i < m is already there
        for m in range(2, n + 1):
            if j == 0:
                row.append(m * (m - 1) // 2)
            elif j >= m - 1:
                row.append(p(m, m - 1))
            else:
                row.append(min(i + p(i, j + 1) + p(m - i, j) for i in range(1, m)))
    return p(n, s)


def revolve_closed_form(n: int, s: int) -> int:
    """Revolve's Proposition 1: ``p(n, s) = t n - beta(s + 1, t - 1)`` with
    ``beta(s, t) = C(s + t, s)`` and ``t`` the unique integer with
    ``beta(s, t - 1) < n <= beta(s, t)``."""
    n, s = _steps_and_snapshots(n, s)
    s = min(s, max(n - 1, 1))
    if n == 1:
        return 0

    def beta(s: int, t: int) -> int:
        return math.comb(s + t, s)

    t = 0
    while beta(s, t) < n:
        t += 1
    return t * n - beta(s + 1, t - 1)
