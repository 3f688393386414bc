"""Count CPU instructions per step under Valgrind: a measure that noise cannot move.

On a shared 2-core VM the wall-clock medians of ``python -m benchmarks`` can
drift by 1.5x between runs; the *ratios* of interleaved engines hold, but a
5% improvement of our own code drowns.  Instruction counts are exact and
repeatable (to a few hundred per step with the hash seed fixed, as here; a random one moves them ±0.8%
through dict and set layouts), so every optimisation in docs/performance.md was
judged by them first and by the interleaved timings second::

    python benchmarks/instructions.py                    # the quick set: per_op, mlp, regression, moons
    python benchmarks/instructions.py per_op minigrad    # one workload, one engine
    python benchmarks/instructions.py --all              # every workload, every installed engine (an hour)
    python benchmarks/instructions.py --help

It runs ``valgrind --tool=callgrind`` on this file twice per (workload,
engine) -- once doing 0 steps, once doing N -- and prints the difference
divided by N: the instructions of one step, without start-up and import.
Each count takes from seconds (per_op) to many minutes (the convolutions,
torch's MLP); a line is printed when each starts.  Valgrind must be installed
(``apt install valgrind``).  Instructions are not time: interpreter code runs
at a higher IPC than BLAS kernels, and memory traffic is invisible here.  Use
it to compare versions of *our* code.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve()
STEPS = {"per_op": 20, "mlp": 10, "deep": 3, "cnn": 5, "cnn64": 5, "tchain": 3,
         "mnist": 1, "lstm_seq": 1, "regression": 20, "moons": 10}
QUICK = ("per_op", "mlp", "regression", "moons")
ENGINES = ("numpy", "minigrad", "torch", "mygrad", "autograd")


def _make_step(workload: str, engine: str):
    sys.path.insert(0, str(_HERE.parent.parent))
    from benchmarks.engines import BENCHMARKS

    spec = BENCHMARKS[workload]
    stem = workload.rstrip("0123456789")  # cnn64 is the float64 cnn: same builders
    make = next((fn for fn in spec["engines"].values() if fn.__name__ == f"{stem}_{engine}"), None)
    return None if make is None else make(*spec["setup"]())


def _child(workload: str, engine: str, n: int) -> None:
    step = _make_step(workload, engine)
    if step is None:
        sys.exit(3)  # engine not installed, or no such engine for this workload
    step()  # first step: lazy imports and caches, not counted
    # every count starts from an empty young generation: else when the collector runs inside the
    # counted steps depends on how many objects the imports made, and any code change moved the mlp
    # count by about 100k (0ea8e8c vs 3db7e42: 24,768,667 vs 24,850,464; after this, 24,744,557 vs 24,730,489)
    gc.collect()
    for _ in range(n):
        step()


def _count(workload: str, engine: str, n: int) -> int | None:
    # a fixed hash seed: string hashes order dicts and sets, and a random one moves the count ±0.8%
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           sys.executable, str(_HERE), "--child", workload, engine, str(n)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode == 3:
        return None
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or m is None:
        raise RuntimeError(f"valgrind run failed for {workload}/{engine}:\n{r.stderr[-2000:]}")
    return int(m.group(1))


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2], int(argv[3]))
        return
    p = argparse.ArgumentParser(
        description="Instructions per training step (callgrind, 1 BLAS thread): the step of N runs minus "
                    "the step of 0 runs, divided by N.  Compare versions of our code with it, not engines' speed.")
    p.add_argument("workload", nargs="?", choices=list(STEPS), help="one workload (default: the quick set "
                   f"{', '.join(QUICK)}; --all for every one)")
    p.add_argument("engine", nargs="?", choices=list(ENGINES), help="one engine (default: every installed one)")
    p.add_argument("--all", action="store_true", help="every workload (the convolutions and torch's MLP take "
                   "many minutes each under Valgrind)")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt install valgrind)")
    workloads = [args.workload] if args.workload else list(STEPS) if args.all else list(QUICK)
    engines = [args.engine] if args.engine else list(ENGINES)
    for w in workloads:
        floor = None
        print(f"{w}: instructions per step (callgrind, 1 BLAS thread; 0 and {STEPS[w]} steps per engine)",
              flush=True)
        for e in engines:
            t0 = time.perf_counter()
            print(f"  {e:10s} counting...", end="\r", flush=True)
            base = _count(w, e, 0)
            if base is None:
                print(f"  {e:10s} (not installed, or not written for this workload)")
                continue
            per_step = (_count(w, e, STEPS[w]) - base) // STEPS[w]
            floor = per_step if e == "numpy" else floor
            ratio = f"  {per_step / floor:5.2f}x floor" if floor else ""
            print(f"  {e:10s} {per_step:>14,d}{ratio}   ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
