"""The least recomputation any checkpointing schedule needs for the sweep's residual net.

    python benchmarks/residual_recompute_bound.py            # 8 blocks, 4-9 arrays held
    python benchmarks/residual_recompute_bound.py --blocks 6 --held 5 6

The residual net of ``checkpoint_sweep.py`` (conv-relu-conv plus skip, then
relu) saves arrays of two kinds, all of one size: each block's input ``x_i``
(its first convolution reads it, and the relu ending the block before saves
it as its output) and the output ``r_i`` of its first relu (the relu and the
second convolution read it).  So block ``i``'s backward reads ``x_i``, ``r_i``
and ``x_{i+1}``.

A schedule holds some of these arrays from the forward pass on and recomputes
the others from held ones: ``x_k`` from ``x_j`` costs ``2 (k - j)``
convolutions, from ``x_{k-1}`` and ``r_{k-1}`` one; ``r_k`` from ``x_k`` one.
What a recomputation passes through and does not keep costs no memory (the
ledger counts an array while something holds it for backward).  Dijkstra's
search over (the next block to reverse, the arrays held) gives the fewest
convolutions recomputed with at most ``held`` arrays held at once -- a lower
bound for every plan of this net, nested or not, whose replays run whole ops.
The network's input ``x_0`` is always held: nothing makes it again.
"""

from __future__ import annotations

import argparse
import heapq
import itertools

Value = tuple[str, int]  # ("x", i): block i's input; ("r", i): its first relu's output


def _recompute_cost(v: Value, held: frozenset[Value]) -> int | None:
    """Convolutions that make ``v`` from the arrays ``held`` (None: it cannot be made)."""
    kind, k = v
    costs = []
    for j in range(k + (kind == "r")):
        if ("x", j) in held:
            costs.append(2 * (k - j) + (kind == "r"))
    if kind == "x" and k > 0 and {("x", k - 1), ("r", k - 1)} <= held:
        costs.append(1)
    if kind == "r" and k > 0 and {("x", k - 1), ("r", k - 1)} <= held:
        costs.append(2)  # the second convolution of block k-1, then the first of block k
    return min(costs, default=None)


def least_convolutions(blocks: int, held: int) -> int | None:
    """The fewest convolution forwards recomputed to reverse ``blocks`` residual blocks
    holding at most ``held`` arrays; None where no schedule fits."""
    values = [("x", i) for i in range(blocks + 1)] + [("r", i) for i in range(blocks)]
    # after the forward pass (which makes every array once) any set of arrays may be held
    frontier = [(0, blocks - 1, frozenset((("x", 0),) + extra))
                for k in range(held) for extra in itertools.combinations(values[1:], k)]
    heapq.heapify(frontier)
    done: set[tuple[int, frozenset[Value]]] = set()
    while frontier:
        cost, i, have = heapq.heappop(frontier)
        if (i, have) in done:
            continue
        done.add((i, have))
        if i < 0:
            return cost
        moves = [(cost, i, have - {v}) for v in have if v != ("x", 0)]
        if {("x", i), ("r", i), ("x", i + 1)} <= have:  # reverse block i; r_i and x_{i+1} are done
            moves.append((cost, i - 1, have - {("r", i), ("x", i + 1)}))
        if len(have) < held:
            for v in values:
                if v not in have and v[1] <= i + (v[0] == "x"):
                    extra = _recompute_cost(v, have)
                    if extra is not None:
                        moves.append((cost + extra, i, have | {v}))
        for move in moves:
            if move[1:] not in done:
                heapq.heappush(frontier, move)
    return None


def main(argv: list[str] | None = None) -> dict[int, int | None]:
    p = argparse.ArgumentParser(description="least convolutions recomputed by any schedule of the residual net")
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--held", type=int, nargs="+", default=list(range(4, 10)),
                   help="how many arrays (each a block's activation) may be held at once")
    args = p.parse_args(argv)
    plain = 2 * args.blocks + 1
    result = {}
    for m in args.held:
        result[m] = least_convolutions(args.blocks, m)
        found = "no schedule fits" if result[m] is None else f"{result[m]} convolutions recomputed"
        print(f"{args.blocks} blocks, {m} of {plain} arrays held ({m / plain:.1%}): {found}")
    return result


if __name__ == "__main__":
    main()
