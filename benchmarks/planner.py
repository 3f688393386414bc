"""How long the optimal planner takes on long chains.

    python benchmarks/planner.py                   # 10,000 layers, budgets 1x, 2x, 3x the smallest peak
    python benchmarks/planner.py --layers 5000 --budgets 1,1.5
    python benchmarks/planner.py --general         # also the general path (views, shared constants)

The chain is real: ``Linear(16, 16)`` and ``Tanh`` alternating, profiled once
by ``profile_chain`` (sizes exact, forward times measured).  For each budget
(a multiple of the smallest feasible peak) it prints the wall-clock and CPU
time of ``plan_for_budget``, the plan's predicted peak and its recompute time
relative to checkpointing everything.  CPU time is printed beside wall time
because on a shared machine the wall clock also counts other processes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt import checkpoint as ck  # noqa: E402
from minigrad_ckpt import nn  # noqa: E402


def chain(n_layers: int, width: int = 16, batch: int = 8, view_every: int = 0) -> ck.ChainProfile:
    """Profile ``n_layers`` alternating Linear/Tanh layers (a reshape every ``view_every``)."""
    mg.manual_seed(0)
    layers: list = []
    for i in range(n_layers):
        if view_every and i % view_every == view_every - 1:
            layers.append(_Reshape())
        else:
            layers.append(nn.Linear(width, width) if i % 2 == 0 else nn.Tanh())
    return ck.profile_chain(layers, mg.randn(batch, width), repeats=1)


class _Reshape(nn.Module):
    def forward(self, h):
        return h.reshape(h.shape)  # a view: same buffer, so the planner's general path runs


def time_plans(profile: ck.ChainProfile, multiples: list[float]) -> list[dict]:
    t0 = time.perf_counter()
    smallest = ck.min_peak_bytes(profile)
    rows = [{"what": "min_peak_bytes", "seconds": time.perf_counter() - t0, "peak": smallest}]
    everything = sum(lp.forward_seconds for lp in profile.layers)
    for m in multiples:
        budget = int(smallest * m)
        wall, cpu = time.perf_counter(), time.process_time()
        plan = ck.plan_for_budget(profile, budget)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append({"what": f"plan_for_budget({m:g} x smallest)", "seconds": wall, "cpu_seconds": cpu,
                     "peak": plan.predicted_peak_bytes, "budget": budget, "blocks": len(plan.blocks),
                     "recompute_share": plan.recompute_seconds / everything})
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=10_000)
    p.add_argument("--budgets", default="1,2,3", help="multiples of the smallest feasible peak")
    p.add_argument("--general", action="store_true", help="also time a chain with view layers (general path)")
    p.add_argument("--quick", action="store_true", help="1,000 layers (a smoke run)")
    args = p.parse_args(argv)
    n = 1000 if args.quick else args.layers
    multiples = [float(b) for b in args.budgets.split(",")]
    profiles = [("Linear/Tanh", chain(n))]
    if args.general:
        profiles.append(("Linear/Tanh + a view every 50", chain(n, view_every=50)))
    out = []
    for name, profile in profiles:
        print(f"\nplanner on {len(profile):,} layers ({name})")
        for row in time_plans(profile, multiples):
            extra = ""
            if "budget" in row:
                extra = (f"  cpu {row['cpu_seconds']:6.2f} s  peak {row['peak']:,} B <= {row['budget']:,} B  "
                         f"{row['blocks']} blocks  recompute {row['recompute_share']:.0%} of a forward")
            print(f"  {row['what']:34s} {row['seconds']:6.2f} s{extra}")
            out.append({"chain": name, **row})
    return out


if __name__ == "__main__":
    main()
