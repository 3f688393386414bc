"""What anomaly mode costs when it is on: step time with ``mg.detect_anomaly()`` over step time without.

    python benchmarks/anomaly_overhead.py                 # per_op, mlp and a small MLP, 30 rounds each
    python benchmarks/anomaly_overhead.py --rounds 5      # a smoke run
    python benchmarks/anomaly_overhead.py --instructions  # the same as CPU instructions (Valgrind; minutes)

Three workloads of minigrad_ckpt: ``per_op`` and ``mlp`` of ``benchmarks/engines.py``
(a 200-op chain on 8 numbers; a 784-256-256-10 MLP step at batch 128), and a
small MLP step (2-32-32-2, batch 64, Adam: the size of the examples in the
docs).  Samples with the mode off and on are interleaved, so a machine that
slows down slows both; the ratio of the medians is printed.  Off, the mode
costs one global read per op (``benchmarks/instructions.py`` counts that);
on, it checks every output and gradient for NaN/inf (one pass over each array)
and walks the stack once per op to note the caller.  On a shared machine the
timings drift; ``--instructions`` counts instructions per step under Valgrind's
callgrind instead (as ``benchmarks/instructions.py`` does: N steps minus 0
steps, divided by N), which no other process can move.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minigrad_ckpt as mg  # noqa: E402
from benchmarks.engines import BENCHMARKS  # noqa: E402
from minigrad_ckpt import nn  # noqa: E402


def small_mlp() -> Callable[[], object]:
    """One training step of a 2-32-32-2 tanh MLP on 64 points, Adam."""
    mg.manual_seed(0)
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.uniform(-1.5, 1.5, (64, 2)).astype(np.float32))
    y = mg.tensor((rng.uniform(0, 1, 64) < 0.5).astype(np.int64))
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
    opt = mg.optim.Adam(model.parameters(), lr=0.01)

    def step() -> object:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    return step


def workloads() -> dict[str, Callable[[], object]]:
    steps = {"small MLP (2-32-32-2, batch 64)": small_mlp()}
    for name in ("per_op", "mlp"):
        spec = BENCHMARKS[name]
        make = next(fn for label, fn in spec["engines"].items() if label == "minigrad_ckpt")
        steps[f"{name} (benchmarks/engines.py)"] = make(*spec["setup"]())
    return steps


def measure(step: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median seconds of a step with the mode off and on, samples interleaved."""
    off, on = [], []
    for i in range(rounds):
        for mode in ((False, True) if i % 2 == 0 else (True, False)):
            with mg.set_detect_anomaly(mode):
                t0 = time.perf_counter()
                step()
                (on if mode else off).append(time.perf_counter() - t0)
    return statistics.median(off), statistics.median(on)


def _child(name: str, mode: str, n: int) -> None:
    step = workloads()[name]
    step()  # first step: lazy imports and caches, not counted
    with mg.set_detect_anomaly(mode == "on"):
        step()  # and the first step in this mode
        for _ in range(n):
            step()


def _instructions(name: str, mode: str, n: int) -> int:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
           "--child", name, mode, str(n)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or m is None:
        raise RuntimeError(f"valgrind run failed for {name} ({mode}):\n{r.stderr[-2000:]}")
    return int(m.group(1))


def count_instructions(steps: int = 5) -> dict[str, float]:
    """Instructions per step with the mode off and on, under callgrind; prints and returns the ratios."""
    ratios = {}
    for name in workloads():
        if name.startswith("mlp"):
            continue  # BLAS-bound: its instructions are the matmuls', its time is the wall clock's to tell
        off, on = ((_instructions(name, mode, steps) - _instructions(name, mode, 0)) // steps
                   for mode in ("off", "on"))
        ratios[name] = on / off
        print(f"{name:40s} off {off:>12,d}   on {on:>12,d}   on/off {on / off:5.2f}x   (instructions per step)",
              flush=True)
    return ratios


def main(argv: list[str] | None = None) -> dict[str, float]:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2], int(argv[3]))
        return {}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--instructions", action="store_true", help="count instructions under Valgrind")
    args = parser.parse_args(argv)
    if args.instructions:
        return count_instructions()
    ratios = {}
    for name, step in workloads().items():
        step()  # warm up (and the first backward calls' contract checks)
        off, on = measure(step, args.rounds)
        ratios[name] = on / off
        print(f"{name:40s} off {off * 1e3:8.3f} ms   on {on * 1e3:8.3f} ms   on/off {on / off:5.2f}x")
    return ratios


if __name__ == "__main__":
    main()
