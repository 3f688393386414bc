"""GPU timings for benchmarks/gpu.sh: the demo on CUDA and an MLP step, vs PyTorch CUDA if present.

    python benchmarks/gpu_bench.py --out results.json

Times are synchronized (``mg.cuda.synchronize()`` / ``torch.cuda.synchronize()``)
medians over interleaved samples after warm-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt import nn  # noqa: E402
from minigrad_ckpt.nn import functional as F  # noqa: E402


def mlp_step_mg(dev: str):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
    opt = mg.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((128, 784)).astype(np.float32), device=dev)
    y = mg.tensor(rng.integers(0, 10, 128), device=dev)

    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if dev != "cpu":
            mg.cuda.synchronize()
        return loss

    return step


def mlp_step_torch():
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(128, 784, device="cuda")
    y = torch.randint(0, 10, (128,), device="cuda")

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        return loss

    return step


def time_steps(fns: dict, rounds: int = 15, inner: int = 10) -> dict:
    for f in fns.values():
        for _ in range(5):
            f()
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(inner):
                f()
            times[k].append((time.perf_counter() - t0) / inner * 1e3)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    p.add_argument("--demo-steps", type=int, default=200)
    args = p.parse_args(argv)
    results = {"cuda_available": mg.cuda.is_available()}
    fns = {"minigrad_ckpt cpu": mlp_step_mg("cpu")}
    if mg.cuda.is_available():
        fns["minigrad_ckpt cuda"] = mlp_step_mg("cuda")
    t = mlp_step_torch()
    if t is not None:
        fns["torch cuda"] = t
    results["mlp_784_256_256_10_ms_per_step"] = time_steps(fns)
    steps = results["mlp_784_256_256_10_ms_per_step"]
    for k, v in steps.items():
        print(f"MLP 784-256-256-10, batch 128, f32, SGD: {k:<20} {v:8.3f} ms/step")
    if "minigrad_ckpt cuda" in steps and "torch cuda" in steps:  # the target: <= 1.5x PyTorch CUDA eager
        results["mlp_cuda_ratio_vs_torch"] = steps["minigrad_ckpt cuda"] / steps["torch cuda"]
        print(f"MLP step, minigrad_ckpt cuda / torch cuda: {results['mlp_cuda_ratio_vs_torch']:.2f}x (target <= 1.5x)")
    if mg.cuda.is_available():
        from minigrad_ckpt.demo import DemoConfig, train

        for dev in ("cuda", "cpu"):
            r = train(DemoConfig(steps=args.demo_steps, device=dev, sample_chars=50), log=lambda s: None)
            results[f"demo_{dev}"] = {k: r[k] for k in ("first_loss", "final_loss", "wall_time_s", "tokens_per_s")}
            print(f"demo on {dev}: {r['wall_time_s']:.1f} s for {args.demo_steps} steps, "
                  f"{r['tokens_per_s']:,.0f} tokens/s, loss {r['first_loss']:.3f} -> {r['final_loss']:.3f}")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
