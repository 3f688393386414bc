"""Run every benchmark, each engine side by side in one process: a table and JSON.

    python -m benchmarks                        # = python benchmarks/run.py
    python -m benchmarks --threads 2            # also with 2 BLAS threads
    python -m benchmarks --only per_op,mlp      # a subset (all: per_op, mlp, deep, cnn, cnn64, tchain, cnn_shapes)
    python -m benchmarks --json results.json
    python -m benchmarks --all                  # also the checkpointing sweep and the snapshot benchmark

Method: BLAS pinned to 1 thread (set before NumPy is imported), every
engine's first step checked against the hand-written NumPy floor, warm-up,
then interleaved rounds whose engine order rotates, ``gc.collect()`` before
each sample, median with p25-p75.  Peak memory: extra tracemalloc peak of
one step (NumPy buffers; torch's allocator is invisible to tracemalloc).
Peers (torch, mygrad, autograd) are used when installed: ``pip install
".[bench]"``.  A float32 check asserts every array the memory ledger saw in
the MLP step was float32.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def _pin_threads(n: int) -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description="minigrad_ckpt benchmarks vs the NumPy floor and peers")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    p.add_argument("--only", default="per_op,mlp,deep,cnn,cnn64,tchain,cnn_shapes",
                   help="comma-separated: per_op, mlp, deep, cnn, cnn64, tchain, cnn_shapes")
    p.add_argument("--rounds", type=int, default=15, help="interleaved samples per engine (>= 15)")
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--all", action="store_true", help="also run the checkpoint sweep and snapshot throughput")
    p.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = p.parse_args(argv)
    _pin_threads(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.harness import run_benchmarks

    rounds = 3 if args.quick else args.rounds
    results = run_benchmarks(args.only.split(","), rounds=rounds, threads=args.threads)
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
