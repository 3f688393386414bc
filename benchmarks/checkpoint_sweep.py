"""Checkpointing, measured side by side in one run: peak activation memory and step time.

    python benchmarks/checkpoint_sweep.py            # the three workloads below
    python benchmarks/checkpoint_sweep.py --quick    # smaller, for a smoke run
    python benchmarks/checkpoint_sweep.py --json out.json
    python benchmarks/checkpoint_sweep.py --clock wall   # wall-clock instead of CPU time

* a 6-block causal transformer, d=128, T=128 (each block split into its
  attention and its MLP half: 12 layers for the planner);
* a ResNet-style residual net (conv-relu-conv plus skip blocks: not a chain
  inside, a chain of blocks outside);
* a ResNet built as ResNets are, of basic blocks (conv-BN-relu-conv-BN plus
  skip, then relu; batch norm in training mode: its running statistics are
  updated once a step, never by a replay);
* a 1,000-layer tanh MLP at a budget of 12 layers' activations (nested plans;
  one level cannot go below about 2 sqrt(n)), its recomputed layer forwards
  next to Revolve's optimum.

For each: the ledger's peak of activation bytes, the planner's prediction,
memory relative to no checkpointing, and the median training-step time
relative to no checkpointing (interleaved samples, order rotated).  Times are
the process's CPU time by default (``--clock cpu``): on a machine other
processes share, wall-clock time also counts the moments the step waited for
a core, which no policy caused.  NumPy's matrix products run on one thread
(the script sets ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``MKL_NUM_THREADS`` to 1 unless they are set): CPU time then is the step's
work, where a second BLAS thread's spinning would count too.

Freed memory is kept for reuse (``--malloc keep``, the default, on glibc):
checkpointing frees activations and allocates them again in its replays, and
with glibc's defaults every large array comes from fresh pages that the kernel
zeroes on first touch -- which made a step's forward pass take twice as long
here, and a checkpointed step pay that again for each replay.  Caching
allocators (PyTorch's, jemalloc's) avoid it; ``mallopt`` does it for NumPy.
``--malloc system`` leaves glibc's defaults, for comparison.

Where torch is installed (and not ``--quick``), the same transformer written
in torch -- the same ops: three projections, masked softmax attention, tanh
GELU -- runs side by side without checkpointing and with
``torch.utils.checkpoint`` around each block (PyTorch's usual use), its peak
counted as the ledger counts: the bytes of the tensors autograd saved
(parameters excluded, each storage once), through saved-tensor hooks.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # before NumPy loads BLAS
    os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minigrad_ckpt as mg  # noqa: E402
from benchmarks.allocator import keep_freed_memory  # noqa: E402
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


class BasicBlock(nn.Module):
    """ResNet's basic block (He et al. 2016): conv-BN-relu-conv-BN plus the skip, then relu.
    The convolutions have no bias: the batch norm after each one subtracts the mean."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.c2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        return F.relu(x + self.bn2(self.c2(F.relu(self.bn1(self.c1(x))))))


def resnet_bn_layers(n_blocks: int, channels: int) -> list:
    mg.manual_seed(0)
    return [BasicBlock(channels) for _ in range(n_blocks)]


def tanh_chain(depth: int, width: int) -> list:
    mg.manual_seed(0)
    return [nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth)]


_CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = time.process_time  # set by main(--clock)


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
    profile = ck.profile_chain(layers, x, repeats=3)  # times: the best of three runs
    base_plan = ck.NoCheckpointing().plan(len(layers))
    base_peak = ck.simulate_peak(profile, base_plan)
    smallest = ck.min_peak_bytes(profile)
    plans = [("none", base_plan, 0.0)]
    for frac in fractions:
        budget = max(int(base_peak * frac), smallest)
        t0 = clock()
        plan = ck.plan_for_budget(profile, budget)
        plans.append((f"optimal {frac:.0%}" if budget > smallest else "optimal min", plan, clock() - t0))
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
            t0 = clock()
            steps[r["policy"]]()
            r["times"].append(clock() - t0)
    base_t = statistics.median(rows[0]["times"])
    base_m = rows[0]["measured_peak"]
    for r in rows:
        r["median_step_s"] = statistics.median(r.pop("times"))
        r["time_ratio"] = r["median_step_s"] / base_t
        r["memory_ratio"] = r["measured_peak"] / base_m


# ---------------------------------------------------------------- torch, side by side
class _SavedBytes:
    """Saved-tensor hooks that count what autograd holds, as the ledger does: the bytes
    of every storage some saved tensor lives in, each once, parameters excluded."""

    def __init__(self, param_storages: set[int]) -> None:
        self.params = param_storages
        self.live: dict[int, list[int]] = {}  # storage pointer -> [bytes, holders]
        self.bytes = self.peak = 0

    def pack(self, t):
        storage = t.untyped_storage()
        key = storage.data_ptr()
        if key in self.params:
            return t
        entry = self.live.setdefault(key, [storage.nbytes(), 0])
        if entry[1] == 0:
            self.bytes += entry[0]
            self.peak = max(self.peak, self.bytes)
        entry[1] += 1
        return _Held(self, key, t)

    @staticmethod
    def unpack(held):
        return held.t if isinstance(held, _Held) else held

    def release(self, key: int) -> None:
        entry = self.live[key]
        entry[1] -= 1
        if entry[1] == 0:
            self.bytes -= entry[0]
            del self.live[key]


class _Held:
    """A saved tensor, counted until autograd lets it go (its backward ran)."""

    __slots__ = ("owner", "key", "t")

    def __init__(self, owner: _SavedBytes, key: int, t) -> None:
        self.owner, self.key, self.t = owner, key, t

    def __del__(self) -> None:
        self.owner.release(self.key)


def torch_transformer(torch, n_blocks: int, d_model: int, heads: int) -> list:
    """The sweep's transformer in torch, op for op: pre-norm blocks, three projections,
    causal softmax attention written out (not a fused kernel), tanh GELU MLP."""
    torch.manual_seed(0)
    tnn = torch.nn

    class Block(tnn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = tnn.LayerNorm(d_model), tnn.LayerNorm(d_model)
            self.q, self.k, self.v, self.o = (tnn.Linear(d_model, d_model) for _ in range(4))
            self.fc1, self.fc2 = tnn.Linear(d_model, 4 * d_model), tnn.Linear(4 * d_model, d_model)

        def forward(self, x):
            b, t, _ = x.shape
            h = self.ln1(x)

            def heads_of(z):
                return z.view(b, t, heads, d_model // heads).transpose(1, 2)

            q, k, v = heads_of(self.q(h)), heads_of(self.k(h)), heads_of(self.v(h))
            scores = (q @ k.transpose(-2, -1)) * (d_model // heads) ** -0.5
            causal = torch.ones(t, t, dtype=torch.bool).triu(1)
            att = scores.masked_fill(causal, float("-inf")).softmax(-1) @ v
            x = x + self.o(att.transpose(1, 2).reshape(b, t, d_model))
            return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x)), approximate="tanh"))

    return [Block() for _ in range(n_blocks)]


def torch_sweep(name: str, blocks: int, d: int, heads: int, t: int, batch: int, samples: int) -> list[dict]:
    """The transformer in torch, without checkpointing and with ``torch.utils.checkpoint``
    around each block; [] where torch is not installed."""
    try:
        import torch
        from torch.utils.checkpoint import checkpoint
    except ImportError:
        return []
    torch.set_num_threads(1)
    model = torch_transformer(torch, blocks, d, heads)
    params = [p for b in model for p in b.parameters()]
    storages = {p.untyped_storage().data_ptr() for p in params}
    # the reentrant checkpoint (whose replay the hooks see) needs an input that requires grad
    x = torch.randn(batch, t, d, requires_grad=True)

    def run(ckpt: bool) -> None:
        for p in [x, *params]:
            p.grad = None
        h = x
        for b in model:
            h = checkpoint(b, h, use_reentrant=True) if ckpt else b(h)
        h.sum().backward()

    rows, steps = [], {}
    for label, ckpt in (("none", False), ("checkpoint", True)):
        counter = _SavedBytes(storages)
        with torch.autograd.graph.saved_tensors_hooks(counter.pack, counter.unpack):
            run(ckpt)  # the hooks also see the reentrant checkpoint's replay in backward
        rows.append({"model": name, "policy": label, "plan_depth": int(ckpt), "measured_peak": counter.peak,
                     "predicted_peak": None, "planning_s": 0.0, "recomputed_layers": blocks if ckpt else 0,
                     "times": []})
        steps[label] = (lambda ckpt=ckpt: run(ckpt))
    _time(rows, steps, samples)
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'model':<32} {'policy':<12} {'depth':>5} {'measured peak':>14} {'predicted':>12} {'mem vs none':>11} "
          f"{'step ms':>9} {'time vs none':>12} {'recomputed':>10} {'plan s':>7}")
    for r in rows:
        predicted = "-" if r["predicted_peak"] is None else f"{r['predicted_peak']:,}"
        print(f"{r['model']:<32} {r['policy']:<12} {r['plan_depth']:>5} {r['measured_peak']:>14,} "
              f"{predicted:>12} {r['memory_ratio']:>10.1%} {r['median_step_s'] * 1e3:>9.1f} "
              f"{r['time_ratio']:>11.2f}x {r['recomputed_layers']:>10,} {r['planning_s']:>7.2f}")


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description="checkpointing sweep")
    p.add_argument("--quick", action="store_true", help="smaller models and fewer samples")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--json", default=None, help="also write the rows as JSON here")
    p.add_argument("--clock", choices=sorted(_CLOCKS), default="cpu",
                   help="step and planning times: the process's CPU time (default) or wall-clock time")
    p.add_argument("--no-torch", action="store_true", help="skip the torch rows (also skipped with --quick)")
    p.add_argument("--transformer-budgets", type=float, nargs="+", default=[0.15], metavar="FRACTION",
                   help="budgets for the transformer, as fractions of its peak without checkpointing (default "
                        "0.15, the target; more show where the time goes: at 0.17 every half-block is replayed once)")
    p.add_argument("--resnet-budgets", type=float, nargs="+", default=[0.3], metavar="FRACTION",
                   help="budgets for the residual net, as fractions of its peak (default 0.3, the target)")
    p.add_argument("--bn-resnet-budgets", type=float, nargs="+", default=[0.3], metavar="FRACTION",
                   help="budgets for the residual net with batch norm, as fractions of its peak (default 0.3)")
    p.add_argument("--malloc", choices=["keep", "system"], default="keep",
                   help="keep freed memory for reuse (default, not with --quick; glibc's mallopt) or leave the "
                        "system's allocator")
    args = p.parse_args(argv)
    global clock
    clock = _CLOCKS[args.clock]
    q = args.quick
    if args.malloc == "keep" and not q and not keep_freed_memory():  # a --quick smoke run changes nothing
        print("(glibc's mallopt is not available: the system's allocator settings stay)")
    samples = args.samples or (3 if q else 7)
    rows = []
    blocks, d, heads, t, batch = (2, 32, 2, 16, 2) if q else (6, 128, 4, 128, 4)
    x = mg.randn(batch, t, d)
    rows += sweep(f"transformer {blocks}x d{d} T{t} b{batch}", transformer_layers(blocks, d, heads), x,
                  args.transformer_budgets, samples)
    if not (q or args.no_torch):
        rows += torch_sweep(f"torch transformer {blocks}x d{d}", blocks, d, heads, t, batch, samples)
    n_res, ch, hw, batch = (3, 4, 8, 2) if q else (8, 16, 32, 8)
    x = mg.randn(batch, ch, hw, hw)
    rows += sweep(f"resnet {n_res} blocks c{ch} {hw}x{hw} b{batch}", resnet_layers(n_res, ch), x,
                  args.resnet_budgets, samples)
    rows += sweep(f"resnet-BN {n_res} blocks c{ch} {hw}x{hw} b{batch}", resnet_bn_layers(n_res, ch), x,
                  args.bn_resnet_budgets, samples)
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
