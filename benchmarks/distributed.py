"""Weak scaling of DistributedDataParallel on this machine: 1 rank vs 2 ranks.

    python benchmarks/distributed.py                 # prints the table (launches mpiexec itself)
    python benchmarks/distributed.py --quick         # a few steps, for the smoke test

The workload: an MLP 784-1024-1024-10 in float32, SGD, batch 256 *per rank*,
one BLAS thread per rank (``OMP_NUM_THREADS=1``).  Reported:

* **throughput** -- samples per second of the whole job, 2 ranks vs the plain
  single-process loop (no DDP, no MPI): the target is >= 1.8x on 2 cores;
* **hidden all-reduce share** -- ``1 - wait / blocking``: ``wait`` is the time
  ``backward()`` still waits for the buckets at its end (DDP times it; per step
  the smaller of the two ranks' waits, since the rank that arrives first also
  waits for the other one to catch up), and
  ``blocking`` the time the same buckets take as blocking ``Allreduce`` calls
  with nothing else to do, measured in the same run.  1.0 means all of the
  communication happened behind the backward computation.

Also printed: the **CPU time** per step and rank, which a busy machine
inflates far less than wall time; ``2 * cpu(1 rank) / cpu(2 ranks)`` estimates
the speedup with a free core per rank (MPI busy-waits, so waiting counts).

The 1-rank and 2-rank jobs alternate (``--rounds``) and medians are taken, so
slow phases of a shared machine hit both; numbers from a busy machine are
still lower than from a quiet one -- say which it was when you quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZES = (784, 1024, 1024, 10)


def _worker(steps: int, batch: int, use_ddp: bool, bucket_cap_mb: float | None = None,
            progress_thread: bool = True, shared_memory: bool = True) -> dict:
    import numpy as np

    import minigrad_ckpt as mg
    from minigrad_ckpt import distributed as dist
    from minigrad_ckpt import nn, optim

    if use_ddp:
        dist.init_process_group("mpi")
    rank = dist.get_rank()
    mg.manual_seed(0)
    layers = []
    for i in range(len(SIZES) - 1):
        layers.append(nn.Linear(SIZES[i], SIZES[i + 1]))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU())
    net = nn.Sequential(*layers).float()
    nn.parallel.DistributedDataParallel._shared_memory = shared_memory
    model = nn.parallel.DistributedDataParallel(net, bucket_cap_mb=bucket_cap_mb) if use_ddp else net
    if use_ddp and not progress_thread:
        object.__setattr__(model, "_progress_thread", False)
    opt = optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(rank)
    x = mg.tensor(rng.standard_normal((batch, SIZES[0])).astype("float32"))
    y = mg.tensor(rng.integers(0, SIZES[-1], size=batch))

    # where the step goes, in wall time and in CPU time (the CPU clock is the one a busy
    # shared machine does not inflate; MPI's busy-waiting counts on it)
    parts = {clock: dict.fromkeys(("forward", "backward", "optimizer", "bucket_copy_in", "finish"), 0.0)
             for clock in ("wall", "cpu")}
    if use_ddp:
        _time_into(parts, model, "_launch", "bucket_copy_in")
        _time_into(parts, model, "_finish", "finish")

    def step() -> None:
        t = [(time.perf_counter(), time.process_time())]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        t.append((time.perf_counter(), time.process_time()))
        loss.backward()
        t.append((time.perf_counter(), time.process_time()))
        opt.step()
        t.append((time.perf_counter(), time.process_time()))
        for i, key in enumerate(("forward", "backward", "optimizer")):
            parts["wall"][key] += t[i + 1][0] - t[i][0]
            parts["cpu"][key] += t[i + 1][1] - t[i][1]

    for _ in range(2):  # warm-up: allocations, first-touch pages
        step()
    for clock in parts.values():
        clock.update((k, 0.0) for k in clock)
    times, cpus, waits = [], [], []
    if use_ddp:
        dist.barrier()
    for _ in range(steps):
        if use_ddp:
            dist.barrier()  # start together: the wait below is communication, not the other rank's lag
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        if use_ddp:
            waits.append(model.wait_seconds)
    out = {"step_s": statistics.median(times), "cpu_s": statistics.median(cpus), "world": dist.get_world_size(),
           "parts_s": {clock: {k: v / steps for k, v in d.items()} for clock, d in parts.items()}}
    if use_ddp:
        # The same buckets, summed as DDP sums them, with nothing to overlap with.
        g = dist.group()
        blocking = []
        arrays = [a for b in model._buckets for a in b.arrays()]  # what DDP's collectives reduce
        node_sum = model._node_sum
        for _ in range(steps):
            g.barrier()
            t0 = time.perf_counter()
            if node_sum is not None:  # through shared memory: start every slot, then complete them
                for w in [node_sum.start(i, a) for i, a in enumerate(arrays)]:
                    w.wait()
            else:
                for a in arrays:
                    g.all_reduce(a)
            blocking.append(time.perf_counter() - t0)
        # The rank that reaches the end of backward last waits only for the
        # communication still in flight; the other one also waits for it.
        every = g.allgather_object(waits)
        residue = [min(w) for w in zip(*every)]
        out.update(wait_s=statistics.median(residue), blocking_s=statistics.median(blocking),
                   path="shared memory" if node_sum is not None else "MPI Iallreduce",
                   buckets=len(model._buckets), bucket_mb=[round(b.nbytes / 2**20, 2) for b in model._buckets])
        dist.destroy_process_group()
    if rank == 0:
        print("BENCH " + json.dumps(out), flush=True)
    return out


def _time_into(parts: dict, model: Any, method: str, key: str) -> None:
    """Wrap ``model.<method>`` so its wall and CPU time add up in ``parts[clock][key]``."""
    inner = getattr(model, method)

    def timed(*args: Any) -> Any:
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return inner(*args)
        finally:
            parts["wall"][key] += time.perf_counter() - t0
            parts["cpu"][key] += time.process_time() - c0

    object.__setattr__(model, method, timed)


def _launch(n: int, steps: int, batch: int, bucket_cap_mb: float | None = None,
            progress_thread: bool = True, shared_memory: bool = True) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    me = [sys.executable, str(Path(__file__).resolve()), "--worker", "--steps", str(steps), "--batch", str(batch)]
    if n == 1:
        cmd = me  # the plain single-process loop: no MPI, no DDP
    else:
        exe = Path(sys.executable).parent / "mpiexec"
        mpiexec = str(exe) if exe.exists() else shutil.which("mpiexec")
        if mpiexec is None:
            raise SystemExit('benchmarks/distributed.py needs mpiexec: pip install ".[distributed]"')
        cmd = [mpiexec, "-launcher", "fork", "-n", str(n), *me, "--ddp"]
        if bucket_cap_mb is not None:
            cmd += ["--bucket-cap-mb", str(bucket_cap_mb)]
        if not progress_thread:
            cmd.append("--no-progress-thread")
        if not shared_memory:
            cmd.append("--mpi-allreduce")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH "))
    return json.loads(line[6:])


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=20, help="timed steps per job (median)")
    p.add_argument("--rounds", type=int, default=3, help="alternating 1-rank / 2-rank jobs")
    p.add_argument("--batch", type=int, default=256, help="batch per rank")
    p.add_argument("--bucket-cap-mb", type=float, default=None,
                   help="DDP bucket size in MiB (default: DDP's, 25 with a first bucket of 1)")
    p.add_argument("--no-progress-thread", action="store_true",
                   help="do not poll the open all-reduces from a thread (to see what the thread buys)")
    p.add_argument("--mpi-allreduce", action="store_true",
                   help="sum the gradients with MPI's Iallreduce, not through shared memory (to compare)")
    p.add_argument("--quick", action="store_true", help="3 steps, 1 round, batch 32 (smoke test)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ddp", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return _worker(args.steps, args.batch, args.ddp, args.bucket_cap_mb, not args.no_progress_thread,
                       not args.mpi_allreduce)
    if args.quick:
        args.steps, args.rounds, args.batch = 3, 1, 32
    one, two = [], []
    for _ in range(args.rounds):
        one.append(_launch(1, args.steps, args.batch))
        two.append(_launch(2, args.steps, args.batch, args.bucket_cap_mb, not args.no_progress_thread,
                           not args.mpi_allreduce))
    t1 = statistics.median(r["step_s"] for r in one)
    t2 = statistics.median(r["step_s"] for r in two)
    wait = statistics.median(r["wait_s"] for r in two)
    blocking = statistics.median(r["blocking_s"] for r in two)
    thr1, thr2 = args.batch / t1, 2 * args.batch / t2
    c1 = statistics.median(r["cpu_s"] for r in one)
    c2 = statistics.median(r["cpu_s"] for r in two)
    result = {
        "mlp": "-".join(map(str, SIZES)), "dtype": "float32", "batch_per_rank": args.batch,
        "step_s_1rank": t1, "step_s_2ranks": t2, "samples_per_s_1rank": thr1, "samples_per_s_2ranks": thr2,
        "speedup": thr2 / thr1, "cpu_s_1rank": c1, "cpu_s_2ranks": c2, "cpu_speedup": 2 * c1 / c2,
        "allreduce_blocking_s": blocking, "allreduce_wait_s": wait,
        "hidden_share": max(0.0, 1.0 - wait / blocking) if blocking > 0 else 0.0,
        "buckets": two[0]["buckets"], "bucket_mb": two[0]["bucket_mb"], "rounds": args.rounds, "steps": args.steps,
        "path": two[0]["path"],
    }
    print(f"DistributedDataParallel weak scaling: MLP {result['mlp']}, float32, batch {args.batch} per rank, "
          f"1 BLAS thread per rank, median of {args.rounds} x {args.steps} steps")
    print(f"  1 rank  (plain loop): {t1 * 1e3:8.1f} ms/step  {thr1:9.0f} samples/s")
    print(f"  2 ranks (DDP, MPI)  : {t2 * 1e3:8.1f} ms/step  {thr2:9.0f} samples/s   "
          f"speedup {result['speedup']:.2f}x (target >= 1.8x)")
    print(f"  CPU time per step and rank: {c1 * 1e3:.1f} ms (1 rank) vs {c2 * 1e3:.1f} ms (2 ranks) -> "
          f"{result['cpu_speedup']:.2f}x if each rank had a core to itself (MPI's busy-wait counts as CPU)")
    for clock in ("wall", "cpu"):
        for label, runs in (("1 rank ", one), ("2 ranks", two)):
            parts = {k: statistics.median(r["parts_s"][clock][k] for r in runs) for k in runs[0]["parts_s"][clock]}
            result[f"parts_{clock}_s_{label.strip().replace(' ', '')}"] = parts
            print(f"  rank 0's step, {clock:4s} time, {label}: "
                  + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in parts.items()) + " ms")
    print("    (backward includes the bucket copies and the finish: the wait for the all-reduces, the mean, "
          "the copy back into .grad)")
    print(f"  all-reduce of {result['buckets']} bucket(s) {result['bucket_mb']} MiB ({result['path']}): "
          f"blocking {blocking * 1e3:.1f} ms, "
          f"still waited for after backward {wait * 1e3:.1f} ms -> {result['hidden_share']:.0%} hidden behind backward")
    return result


if __name__ == "__main__":
    main()
