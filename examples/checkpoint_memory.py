"""Memory over time with and without activation checkpointing.

    python examples/checkpoint_memory.py                 # text chart in the terminal
    python examples/checkpoint_memory.py --png mem.png   # a picture (needs matplotlib)

Runs one training step of a deep MLP under several checkpointing policies with
the memory ledger on (``mg.memory.track()``) and draws the bytes of
activations the tape holds at every event of the step: rising through the
forward pass, and in backward either falling steadily (no checkpointing) or
in a saw-tooth (each checkpointed segment is replayed, then released).
"""

from __future__ import annotations

import argparse

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn


def timelines(depth: int = 32, width: int = 128, batch: int = 32) -> dict[str, tuple[ck.Plan, list]]:
    mg.manual_seed(0)
    layers = [nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth)]
    x = mg.randn(batch, width)
    profile = ck.profile_chain(layers, x)
    smallest = min(p.predicted_peak_bytes for p in ck.pareto_plans(profile))
    policies = {
        "none": ck.NoCheckpointing(),
        "every 4": ck.EveryNLayers(4),
        "sqrt": ck.Sqrt(),
        "optimal (min)": ck.Optimal(smallest),
    }
    out = {}
    for name, policy in policies.items():
        plan = ck.plan_chain(layers, x, policy, profile=profile)
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, x).sum().backward()
        out[name] = (plan, [(phase, saved) for _, phase, saved, _ in ledger.timeline])
    return out


def text_chart(series: dict[str, tuple[ck.Plan, list]], width: int = 64, height: int = 10) -> str:
    peak = max(max(v for _, v in tl) for _, tl in series.values())
    lines = []
    for name, (plan, tl) in series.items():
        cols = []
        for i in range(width):  # the highest value in each column's slice of the timeline
            lo = int(i * len(tl) / width)
            hi = max(int((i + 1) * len(tl) / width), lo + 1)
            cols.append(max(v for _, v in tl[lo:hi]))
        lines.append(f"{name}: peak {max(cols) / 1024:.0f} KiB  ({plan.describe()})")
        for row in range(height, 0, -1):
            level = peak * row / height
            lines.append("  |" + "".join("#" if c >= level - peak / (2 * height) else " " for c in cols))
        lines.append("  +" + "-" * width + "> events (forward, then backward)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--png", default=None, help="write a matplotlib figure here")
    p.add_argument("--depth", type=int, default=32)
    args = p.parse_args(argv)
    series = timelines(depth=args.depth)
    if args.png:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed (pip install matplotlib); drawing a text chart instead")
            args.png = None
    if args.png:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for name, (_plan, tl) in series.items():
            ax.plot([v / 1024 for _, v in tl], label=f"{name} (peak {max(v for _, v in tl) / 1024:.0f} KiB)")
        ax.set_xlabel("ledger event (forward pass, then backward)")
        ax.set_ylabel("activation KiB held by the tape")
        ax.set_title(f"One training step of a {args.depth}-layer MLP")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.png, dpi=120)
        print(f"wrote {args.png}")
    else:
        print(text_chart(series))
    return series


if __name__ == "__main__":
    main()
