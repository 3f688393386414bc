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


def mlp_mg(dev: str):
    """The 784-256-256-10 MLP on ``dev``, its SGD optimizer and one batch of 128: (model, opt, x, y)."""
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
    opt = mg.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((128, 784)).astype(np.float32), device=dev)
    y = mg.tensor(rng.integers(0, 10, 128), device=dev)
    return model, opt, x, y


def mlp_step_mg(dev: str):
    model, opt, x, y = mlp_mg(dev)

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


def phase_times(model_step, sync, steps: int = 200, warmup: int = 20) -> list[float]:
    """Median microseconds of the step's phases (forward, loss, backward, optimizer step), each
    followed by a synchronization so that a phase's kernels are charged to it."""
    model, loss_fn, opt = model_step
    rows = []
    for i in range(steps + warmup):
        t = [time.perf_counter()]
        out = model()
        sync()
        t.append(time.perf_counter())
        loss = loss_fn(out)
        sync()
        t.append(time.perf_counter())
        opt.zero_grad()
        loss.backward()
        sync()
        t.append(time.perf_counter())
        opt.step()
        sync()
        t.append(time.perf_counter())
        if i >= warmup:
            rows.append([(b - a) * 1e6 for a, b in zip(t, t[1:])])
    return [round(statistics.median(col), 1) for col in zip(*rows)]


def mlp_phases_mg(device: str = "cuda", steps: int = 200, warmup: int = 20):
    model, opt, x, y = mlp_mg(device)
    return phase_times((lambda: model(x), lambda out: F.cross_entropy(out, y), opt),
                       lambda: mg.device(device).xp.synchronize(), steps, warmup)


def mlp_phases_torch():
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(128, 784, device="cuda")
    y = torch.randint(0, 10, (128,), device="cuda")
    return phase_times((lambda: model(x), lambda out: torch.nn.functional.cross_entropy(out, y), opt),
                       torch.cuda.synchronize)


def launch_costs() -> dict:
    """Microseconds per call, 50 calls then one synchronization: what one launch costs the host
    through CuPy itself, through the engine and through torch."""
    import cupy

    def per_call(f, sync, n: int = 50) -> float:
        def batch():
            for _ in range(n):
                f()
            sync()
        batch()
        return round(statistics.median(_timed(batch) for _ in range(30)) / n * 1e6, 2)

    a, w = cupy.ones((128, 256), cupy.float32), cupy.ones((256, 256), cupy.float32)
    ta, tw = mg.tensor(a, device="cuda"), mg.tensor(w, device="cuda")
    sync = cupy.cuda.Device().synchronize
    costs = {"cupy add": per_call(lambda: a + a, sync), "minigrad_ckpt add": per_call(lambda: ta + ta, sync),
             "cupy matmul": per_call(lambda: a @ w, sync), "minigrad_ckpt matmul": per_call(lambda: ta @ tw, sync),
             "cupy reduction read to the host": per_call(lambda: bool(a.max() > 5), sync)}
    try:
        import torch
    except ImportError:
        return costs
    t, tw2 = torch.ones(128, 256, device="cuda"), torch.ones(256, 256, device="cuda")
    costs["torch add"] = per_call(lambda: t + t, torch.cuda.synchronize)
    costs["torch matmul"] = per_call(lambda: t @ tw2, torch.cuda.synchronize)
    return costs


def _timed(f) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


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
        results["launch_us"] = launch_costs()
        print("one call, us:", ", ".join(f"{k} {v}" for k, v in results["launch_us"].items()))
        results["mlp_phases_us"] = {"minigrad_ckpt cuda": mlp_phases_mg()}
        if t is not None:
            results["mlp_phases_us"]["torch cuda"] = mlp_phases_torch()
        for k, v in results["mlp_phases_us"].items():
            print(f"MLP step phases (forward, loss, backward, step), us, each synchronized: {k:<20} {v}")
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
