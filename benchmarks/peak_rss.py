"""Peak resident memory of one training step, each engine in a fresh process.

    python benchmarks/peak_rss.py                  # the MNIST Net step, this engine vs PyTorch
    python benchmarks/peak_rss.py --workload moons

tracemalloc (the harness's "extra peak" column) sees NumPy's buffers but not
PyTorch's allocator, so the two engines are compared here by what the
operating system sees: each engine runs in its own process (so neither pays
for the other's imports), builds the model and the batch, reads its resident
set (``/proc/self/statm``), runs ``--steps`` steps and reads its peak resident
set (``VmHWM`` in ``/proc/self/status``).  Reported per engine: the step's peak
above the resident set before the first step (activations, gradients, the
optimizer's state, workspace) and the whole process's peak.  Linux only.

The high-water mark is reset to the current resident set just before the steps
(``5`` written to ``/proc/self/clear_refs``, Linux 4.0 and later), so that a
setup that once held more than a step does cannot be reported as the step's;
where the reset is not allowed, ``"hwm_reset": false`` says so.

What the setup leaves behind still matters: glibc raises its threshold for
serving an allocation with a mapping of its own each time such a mapping is
freed, so a setup that freed large temporaries makes the step's arrays come from
the heap, where freed memory stays resident.  This engine's MNIST step read 47.5
MiB while its weight initialisation freed 9 MB temporaries and 38.5 MiB once it
no longer made them (fifteenth session), with the same arrays alive
(tracemalloc's peak: 39.1 MiB); with the threshold fixed
(``MALLOC_MMAP_THRESHOLD_=131072``) both read about 40 MiB, and torch's step 61.5
MiB instead of 88.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_resident_bytes() -> int:
    """The process's high-water resident set (``VmHWM``).  Not ``getrusage``'s
    ``ru_maxrss``: that keeps the high-water mark of the image the process replaced at
    ``exec``, which under ``vfork`` (how ``subprocess`` starts children) is the *parent's*
    -- 230 MiB instead of 155 MiB here when the parent had imported torch."""
    with open("/proc/self/status") as f:
        line = next(ln for ln in f if ln.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024  # kB


def _child(workload: str, engine: str, steps: int) -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.engines import BENCHMARKS

    spec = BENCHMARKS[workload]
    step = spec["engines"][engine](*spec["setup"]())
    if step is None:
        print("RSS null")
        return
    reset = _reset_peak_resident()
    before = _resident_bytes()
    for _ in range(steps):
        step()
    peak = _peak_resident_bytes()
    print("RSS " + json.dumps({"before": before, "peak": peak, "hwm_reset": reset}))


def _reset_peak_resident() -> bool:
    """Set the high-water resident set (``VmHWM``) to the current one; False where Linux refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(workload: str = "mnist", engines: tuple[str, ...] = ("minigrad_ckpt", "torch"),
            steps: int = 3) -> dict[str, dict[str, int] | None]:
    """``{engine: {"before", "peak", "step_peak"}}`` in bytes (``None``: not installed)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out: dict[str, dict[str, int] | None] = {}
    for engine in engines:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", workload, engine, str(steps)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        got = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("RSS "))[4:])
        out[engine] = None if got is None else {**got, "step_peak": got["peak"] - got["before"]}
        if got is not None and not got.get("hwm_reset", True):
            print(f"  ({engine}: the peak could not be reset before the steps: it includes the setup's)")
    return out


def report(workload: str, rows: dict[str, dict[str, int] | None]) -> None:
    mib = 2 ** 20
    print(f"\n{workload}: peak resident memory, each engine in its own process")
    print(f"  {'engine':<18} {'step peak MiB':>14} {'process peak MiB':>17}")
    for engine, r in rows.items():
        if r is None:
            print(f"  {engine:<18} (not installed)")
            continue
        print(f"  {engine:<18} {r['step_peak'] / mib:14.1f} {r['peak'] / mib:17.1f}")
    mine, theirs = rows.get("minigrad_ckpt"), rows.get("torch")
    if mine and theirs:
        print(f"  step peak, minigrad_ckpt / torch: {mine['step_peak'] / theirs['step_peak']:.2f}x")


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workload", default="mnist", help="a workload of python -m benchmarks (default mnist)")
    p.add_argument("--steps", type=int, default=3, help="steps run before the peak is read")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], int(args.child[2]))
        return {}
    rows = measure(args.workload, steps=args.steps)
    report(args.workload, rows)
    return rows


if __name__ == "__main__":
    main()
