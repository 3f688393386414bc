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
    smallest = ck.min_peak_bytes(profile)
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
        out[name] = (plan, list(ledger.timeline))
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--png", default=None, metavar="FILE",
                   help="write a matplotlib figure here (needs matplotlib: pip install 'minigrad-ckpt[viz]'; "
                        "default: a text chart on stdout)")
    p.add_argument("--depth", type=int, default=32, help="layers of the MLP (default: 32)")
    args = p.parse_args(argv)
    series = timelines(depth=args.depth)
    for name, (plan, _) in series.items():
        print(f"{name:>14}: {plan.describe()}")
    drawn = mg.viz.plot_memory({name: tl for name, (_, tl) in series.items()}, args.png,
                               title=f"One training step of a {args.depth}-layer MLP")
    print(drawn if isinstance(drawn, str) else f"wrote {drawn}")
    return series


if __name__ == "__main__":
    try:
        main()
    except ImportError as exc:  # --png without matplotlib: say what to install, no traceback
        raise SystemExit(f"error: {exc}") from None
