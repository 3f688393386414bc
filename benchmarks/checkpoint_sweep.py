"""Checkpointing, measured side by side in one run: peak activation memory and step time.

    python benchmarks/checkpoint_sweep.py            # the three workloads below
    python benchmarks/checkpoint_sweep.py --quick    # smaller, for a smoke run
    python benchmarks/checkpoint_sweep.py --json out.json

* a 6-block causal transformer, d=128, T=128 (each block split into its
  attention and its MLP half: 12 layers for the planner);
* a ResNet-style residual net (conv-relu-conv plus skip blocks: not a chain
  inside, a chain of blocks outside);
* a 1,000-layer tanh MLP at a budget of 12 layers' activations (nested plans;
  one level cannot go below about 2 sqrt(n)), its recomputed layer forwards
  next to Revolve's optimum.

For each: the ledger's peak of activation bytes, the planner's prediction,
memory relative to no checkpointing, and the median training-step time
relative to no checkpointing (interleaved samples, order rotated).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt import checkpoint as ck  # noqa: E402
from minigrad_ckpt import nn  # noqa: E402
from minigrad_ckpt.nn import functional as F  # noqa: E402


def transformer_layers(n_blocks: int, d_model: int, heads: int) -> list:
    """Each pre-norm block as two layers: x + attn(ln1(x)), then x + mlp(ln2(x))."""
    mg.manual_seed(0)
    layers = []
    for _ in range(n_blocks):
        b = nn.TransformerBlock(d_model, heads, causal=True, activation="gelu_tanh")

        def attn_half(x, b=b):
            h = b.ln1(x)
            return x + b.drop1(b.attn(h, h, h, need_weights=False, is_causal=True)[0])

        def mlp_half(x, b=b):
            return x + b.mlp(b.ln2(x))

        layers += [_Layer(attn_half, [*b.ln1.parameters(), *b.attn.parameters()]),
                   _Layer(mlp_half, [*b.ln2.parameters(), *b.mlp.parameters()])]
    return layers


class _Layer:
    """A callable with its parameters (what the sweep zeroes between steps)."""

    def __init__(self, fn, params: list) -> None:
        self.fn, self.params = fn, params

    def __call__(self, x):
        return self.fn(x)

    def parameters(self) -> list:
        return self.params


class ResidualBlock(nn.Module):
    """conv-relu-conv plus the skip connection, then relu: a graph, not a chain."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.c2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return F.relu(x + self.c2(F.relu(self.c1(x))))


def resnet_layers(n_blocks: int, channels: int) -> list:
    mg.manual_seed(0)
    return [ResidualBlock(channels) for _ in range(n_blocks)]


def tanh_chain(depth: int, width: int) -> list:
    mg.manual_seed(0)
    return [nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth)]


def measure(layers: list, x: mg.Tensor, plan: ck.Plan) -> tuple[int, object]:
    params = [p for layer in layers for p in layer.parameters()]

    def step() -> None:
        for p in params:
            p.grad = None
        ck.run_plan(layers, plan, x).sum().backward()

    with mg.memory.track() as ledger:
        step()
    return ledger.peak("saved"), step


def sweep(name: str, layers: list, x: mg.Tensor, fractions: list[float], samples: int) -> list[dict]:
    """No checkpointing and the optimal plan at each fraction of its peak (or the smallest)."""
    profile = ck.profile_chain(layers, x)
    base_plan = ck.NoCheckpointing().plan(len(layers))
    base_peak = ck.simulate_peak(profile, base_plan)
    smallest = ck.min_peak_bytes(profile)
    plans = [("none", base_plan, 0.0)]
    for frac in fractions:
        budget = max(int(base_peak * frac), smallest)
        t0 = time.perf_counter()
        plan = ck.plan_for_budget(profile, budget)
        plans.append((f"optimal {frac:.0%}" if budget > smallest else "optimal min", plan,
                      time.perf_counter() - t0))
    rows, steps = [], {}
    for label, plan, planning in plans:
        peak, step = measure(layers, x, plan)
        rows.append({"model": name, "policy": label, "plan_depth": plan.depth, "measured_peak": peak,
                     "predicted_peak": ck.simulate_peak(profile, plan), "planning_s": planning,
                     "recomputed_layers": ck.recomputed_layers(profile, plan), "times": []})
        steps[label] = step
    _time(rows, steps, samples)
    return rows


def _time(rows: list[dict], steps: dict, samples: int) -> None:
    for fn in steps.values():  # warm up
        fn()
    for i in range(samples):  # interleaved rounds, rotating order (drift hits every policy alike)
        for r in rows[i % len(rows):] + rows[:i % len(rows)]:
            gc.collect()
            t0 = time.perf_counter()
            steps[r["policy"]]()
            r["times"].append(time.perf_counter() - t0)
    base_t = statistics.median(rows[0]["times"])
    base_m = rows[0]["measured_peak"]
    for r in rows:
        r["median_step_s"] = statistics.median(r.pop("times"))
        r["time_ratio"] = r["median_step_s"] / base_t
        r["memory_ratio"] = r["measured_peak"] / base_m


def print_table(rows: list[dict]) -> None:
    print(f"{'model':<30} {'policy':<12} {'depth':>5} {'measured peak':>14} {'predicted':>12} {'mem vs none':>11} "
          f"{'step ms':>9} {'time vs none':>12} {'recomputed':>10} {'plan s':>7}")
    for r in rows:
        print(f"{r['model']:<30} {r['policy']:<12} {r['plan_depth']:>5} {r['measured_peak']:>14,} "
              f"{r['predicted_peak']:>12,} {r['memory_ratio']:>10.1%} {r['median_step_s'] * 1e3:>9.1f} "
              f"{r['time_ratio']:>11.2f}x {r['recomputed_layers']:>10,} {r['planning_s']:>7.2f}")


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description="checkpointing sweep")
    p.add_argument("--quick", action="store_true", help="smaller models and fewer samples")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--json", default=None, help="also write the rows as JSON here")
    args = p.parse_args(argv)
    q = args.quick
    samples = args.samples or (3 if q else 7)
    rows = []
    blocks, d, heads, t, batch = (2, 32, 2, 16, 2) if q else (6, 128, 4, 128, 4)
    x = mg.randn(batch, t, d)
    rows += sweep(f"transformer {blocks}x d{d} T{t} b{batch}", transformer_layers(blocks, d, heads), x,
                  [0.15], samples)
    n_res, ch, hw, batch = (3, 4, 8, 2) if q else (8, 16, 32, 8)
    x = mg.randn(batch, ch, hw, hw)
    rows += sweep(f"resnet {n_res} blocks c{ch} {hw}x{hw} b{batch}", resnet_layers(n_res, ch), x, [0.3], samples)
    depth, width, batch = (60, 8, 4) if q else (1000, 64, 32)
    layers = tanh_chain(depth, width)
    x = mg.randn(batch, width)
    a = batch * width * 4
    chain_rows = sweep(f"tanh MLP {depth}x{width} b{batch}", layers, x, [12 * a / _plain_peak(layers, x)],
                       max(1, samples // 2))
    for r in chain_rows[1:]:
        r["policy"] = "12 layers"
        r["revolve_s11"] = ck.revolve_extra_forwards(depth, 11) - (depth - 1)
        r["revolve_s10"] = ck.revolve_extra_forwards(depth, 10) - (depth - 1)
    rows += chain_rows
    print_table(rows)
    for r in chain_rows[1:]:
        print(f"{r['model']}: {r['recomputed_layers']:,} layer forwards recomputed; Revolve's optimum "
              f"{r['revolve_s11']:,} (11 snapshots + 1) / {r['revolve_s10']:,} (10 + 2: a tanh layer holds its "
              f"input and output)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return rows


def _plain_peak(layers: list, x: mg.Tensor) -> int:
    return ck.simulate_peak(ck.profile_chain(layers, x, repeats=1), ck.NoCheckpointing().plan(len(layers)))


if __name__ == "__main__":
    main()
