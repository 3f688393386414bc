"""How long an asynchronous snapshot stops the training loop, against a blocking save.

    python benchmarks/snapshot_stall.py                # a 100 MB state (25 float32 tensors of 4 MB)
    python benchmarks/snapshot_stall.py --quick        # 10 MB
    python benchmarks/snapshot_stall.py --dir /tmp     # where to write (default: a temporary directory)

For each repeat, interleaved: ``manager.save_snapshot(ex)`` (blocking: capture, write, fsync,
checksum, commit -- the loop waits for all of it) and ``manager.save_snapshot(ex,
blocking=False)`` (the loop waits only for the capture: references to the arrays, copied on
write; a background thread copies, writes and commits).  The *stall* is the time the call
takes; the asynchronous save is then waited for (``handle.wait()``, outside the stall) before
the next repeat so the two never overlap.

Copy-on-write moves the copy of an array the loop writes before the writer copied it onto
the loop.  The worst case is measured too: an update of *every* tensor in place (``add_``, an
optimizer step over the whole state) at once after the call, against the same update with no
save in flight -- the difference is what that step pays for the copies.  A real step first
runs forward and backward (which read the parameters), while the writer copies.

Prints the medians and stall / blocking (target: <= 10%).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt.snapshot import SnapshotManager  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a 10 MB state")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--dir", default=None)
    args = p.parse_args(argv)
    mb = 10 if args.quick else 100
    ex = mg.Executor()
    rng = np.random.default_rng(0)
    for i in range(25):  # 25 tensors of mb/25 MB each
        ex.add_tensor(f"w{i}", mg.tensor(rng.standard_normal(mb * 2**20 // 25 // 4).astype(np.float32)))
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        manager = SnapshotManager(d, max_snapshots=2)
        blocking, stall, background, step, step_after = [], [], [], [], []
        for r in range(args.repeats):
            t = time.perf_counter()
            manager.save_snapshot(ex, 2 * r)
            blocking.append(time.perf_counter() - t)
            step.append(_update_all(ex))
            t = time.perf_counter()
            handle = manager.save_snapshot(ex, 2 * r + 1, blocking=False)
            stall.append(time.perf_counter() - t)
            step_after.append(_update_all(ex))  # at once: the writer has copied little or nothing yet
            handle.wait()
            background.append(time.perf_counter() - t)
    out = {"state_mb": float(mb), "blocking_s": statistics.median(blocking), "stall_s": statistics.median(stall),
           "async_total_s": statistics.median(background), "step_s": statistics.median(step),
           "step_after_s": statistics.median(step_after)}
    out["stall_share"] = out["stall_s"] / out["blocking_s"]
    print(f"snapshot stall, {mb} MB state, median of {args.repeats}:")
    print(f"  blocking save          {out['blocking_s'] * 1e3:8.1f} ms   (the loop waits for all of it)")
    print(f"  blocking=False: stall  {out['stall_s'] * 1e3:8.1f} ms   ({out['stall_share']:.1%} of the blocking "
          f"save; target <= 10%)")
    print(f"  ... written after      {out['async_total_s'] * 1e3:8.1f} ms   (in the background)")
    print(f"  in-place update of every tensor: {out['step_s'] * 1e3:.1f} ms with no save in flight, "
          f"{out['step_after_s'] * 1e3:.1f} ms at once after the call (the worst case of copy-on-write: "
          f"{(out['step_after_s'] - out['step_s']) / out['blocking_s']:.1%} of the blocking save more)")
    return out


def _update_all(ex: mg.Executor) -> float:
    """Seconds for one in-place update of every tensor (as an optimizer step writes them)."""
    t = time.perf_counter()
    with mg.no_grad():
        for tensor in ex.tensors.values():
            tensor.mul_(1.0)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
