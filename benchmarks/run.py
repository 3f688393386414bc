"""Run every benchmark, each engine side by side in one process: a table and JSON.

    python -m benchmarks                        # = python benchmarks/run.py
    python -m benchmarks --threads 2            # also with 2 BLAS threads
    python -m benchmarks --only per_op,mlp      # a subset (the names: see --help)
    python -m benchmarks --json results.json
    python -m benchmarks --all                  # also the checkpointing sweep and the snapshot benchmark
    python -m benchmarks --malloc keep          # no engine pays page faults for memory freed and taken again
    python -m benchmarks --blas-core SkylakeX   # NumPy's OpenBLAS with its AVX-512 kernels (benchmarks/blas.py)

Method: BLAS pinned to 1 thread (set before NumPy is imported), every
engine's first step checked against the hand-written NumPy floor, warm-up,
then interleaved rounds whose engine order rotates, ``gc.collect()`` before
each sample, median with p25-p75.  Peak memory: extra tracemalloc peak of
one step (NumPy buffers; torch's allocator is invisible to tracemalloc).
Peers (torch, mygrad, autograd) are used when installed: ``pip install
".[bench]"``.  A float32 check asserts every array the memory ledger saw in
the MLP step was float32.

Besides the step timings: ``mnist_rss`` runs the MNIST step of each engine in
a process of its own and compares peak resident memory
(``benchmarks/peak_rss.py``), and ``ddp`` runs the 1-rank vs 2-rank weak
scaling of ``benchmarks/distributed.py``.  The run ends with one summary row
per program: the ratio to PyTorch (or to the NumPy floor) beside its target.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

STEPS = ("per_op", "mlp", "deep", "cnn", "cnn64", "tchain", "cnn_shapes", "mnist", "lstm_seq", "regression",
         "moons", "gpt")
EXTRA = ("mnist_rss", "ddp")
ALL = STEPS + EXTRA

# (row of the summary, benchmark, engine to divide by, target): the programs' table.
TABLE = (
    ("pytorch/examples MNIST Net, batch 64, float32", "mnist", "torch", 1.25),
    ("pytorch/examples time_sequence_prediction (2 LSTMCells), float64", "lstm_seq", "torch", 1.2),
    ("pytorch/examples regression (tiny tensors)", "regression", "torch", 1.2),
    ("digits CNN, float32", "cnn", "torch", 1.0),
    ("digits CNN, float64", "cnn64", "torch", 1.0),
    ("MLP 784-256-256-10, batch 128", "mlp", "torch", 1.0),
    ("MLP 784-256-256-10 vs the NumPy floor", "mlp", "numpy (by hand)", 1.10),
    ("micrograd's moons MLP", "moons", "torch", None),
    ("character GPT (2 blocks, d=256, GELU MLP), 8 x 128 tokens, float32", "gpt", "torch", None),
    ("per-op overhead (200-op chain)", "per_op", "torch", 0.80),
)


def summary(results: dict) -> list[tuple[str, float | None, float | None]]:
    """Print (and return) one row per program: minigrad_ckpt's median over the reference's."""
    rows = []
    for label, bench, ref, target in TABLE:
        engines = results.get("benchmarks", {}).get(bench, {}).get("engines", {})
        if "minigrad_ckpt" in engines and ref in engines:
            rows.append((label, engines["minigrad_ckpt"]["median"] / engines[ref]["median"], target, ref))
    rss = results.get("mnist_rss") or {}
    if rss.get("minigrad_ckpt") and rss.get("torch"):
        rows.append(("MNIST Net step, peak resident memory", rss["minigrad_ckpt"]["step_peak"]
                     / rss["torch"]["step_peak"], 1.2, "torch"))
    ddp = results.get("ddp")
    if ddp:
        rows.append(("data-parallel MLP 784-1024-1024-10, 2 ranks vs 1 (speedup)", ddp["speedup"], 1.8, "1 rank"))
    if rows:
        print("\nSummary: minigrad_ckpt / reference, this run (a speedup for data parallelism)")
        for label, ratio, target, ref in rows:
            goal = "" if target is None else (f"target >= {target}" if "speedup" in label else f"target <= {target}")
            print(f"  {label:<66} {ratio:6.2f}x {ref:<16} {goal}")
    return [(label, ratio, target) for label, ratio, target, _ in rows]


def _pin_threads(n: int) -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description="minigrad_ckpt benchmarks vs the NumPy floor and peers")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    p.add_argument("--only", default=",".join(ALL), help="comma-separated, of: " + ", ".join(ALL))
    p.add_argument("--rounds", type=int, default=15, help="interleaved samples per engine (>= 15)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time the steps by the wall clock (default) or by the process's CPU time, which a "
                        "machine shared with other jobs inflates far less")
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--all", action="store_true", help="also run the checkpoint sweep and snapshot throughput")
    p.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    p.add_argument("--blas-core", default=None, metavar="CORE",
                   help="OpenBLAS kernels for NumPy (OPENBLAS_CORETYPE, e.g. SkylakeX for AVX-512): by default "
                        "OpenBLAS's own choice, which the header reports (benchmarks/blas.py)")
    p.add_argument("--malloc", choices=("system", "keep"), default="system",
                   help="leave glibc's allocator settings (default) or keep freed memory for reuse, so that no "
                        "engine's step pays page faults for arrays allocated again (benchmarks/allocator.py)")
    args = p.parse_args(argv)
    _pin_threads(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks import blas

    if args.blas_core:
        blas.choose_core(args.blas_core)
    core = blas.openblas_core()
    print(f"NumPy's OpenBLAS kernels: {core or 'not found'}")
    if not args.blas_core and blas.unused_avx512(core):  # (OpenBLAS's own choice, not one asked for)
        print(f"  (this CPU has AVX-512, which OpenBLAS's {core} kernels leave unused -- on AMD Zen 5, "
              "OpenBLAS 0.3.31 misidentifies the CPU, OpenMathLib/OpenBLAS#6029; --blas-core SkylakeX runs "
              "its AVX-512 kernels for every engine: benchmarks/blas.py)")
    if args.malloc == "keep":
        from benchmarks.allocator import keep_freed_memory

        print("allocator: freed memory kept for reuse" if keep_freed_memory()
              else "(glibc's mallopt is not available: the system's allocator settings stay)")
    from benchmarks.harness import run_benchmarks

    rounds = 3 if args.quick else args.rounds
    names = args.only.split(",")
    unknown = sorted(set(names) - set(ALL))
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; the names: {', '.join(ALL)}")
    results = run_benchmarks([n for n in names if n not in EXTRA], rounds=rounds, threads=args.threads,
                             clock=args.clock)
    print(f"\n(clock: {args.clock} time)")
    if "mnist_rss" in names:
        from benchmarks import peak_rss

        results["mnist_rss"] = peak_rss.measure("mnist")
        peak_rss.report("mnist", results["mnist_rss"])
    if "ddp" in names:
        from benchmarks import distributed

        print(flush=True)
        results["ddp"] = distributed.main(["--quick"] if args.quick else ["--rounds", "2"])
    summary(results)
    if args.all:
        from benchmarks import checkpoint_sweep, snapshot_throughput

        results["checkpoint_sweep"] = checkpoint_sweep.main(["--quick"] if args.quick else [])
        results["snapshot_throughput"] = snapshot_throughput.main(["--quick"] if args.quick else [])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
        print(f"\nwrote {args.json}")
    return results


if __name__ == "__main__":
    main()
