"""Snapshot save/load throughput and memory, side by side with the limits.

    python benchmarks/snapshot_throughput.py              # (a) 200 x 256x256 f32, (b) ~400 MB in 4 tensors
    python benchmarks/snapshot_throughput.py --quick      # smaller states
    python benchmarks/snapshot_throughput.py --dir /tmp   # where to write (default: /dev/shm if present)

For each state, in one run and interleaved: raw ``os.write``/``readinto`` of the
same bytes (the limit), ``numpy.save``/``numpy.load``, ``safetensors`` if
installed, and minigrad_ckpt's ``Snapshot.save``/``Snapshot.load`` (atomic,
fsynced, CRC-32 per tensor verified on load).  Every writer fsyncs, so the
comparison is fair.  Prints GB/s, the ratio to raw, extra peak memory
(tracemalloc) relative to the state size, and the share of save time the
checksums cost, and what ``enable_compression`` costs on this incompressible
data.  Targets: save >= 0.8x raw write, load >= 0.8x raw read, extra memory
<= 1.1x the state, compressed save <= 1.3x the uncompressed save.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig  # noqa: E402
from minigrad_ckpt.snapshot import format as fmt  # noqa: E402


def make_state(kind: str, quick: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    if kind == "a":
        n, side = (50, 128) if quick else (200, 256)
        return {f"t{i:03d}": rng.standard_normal((side, side), dtype=np.float32) for i in range(n)}
    side = 1000 if quick else 5000
    return {f"w{i}": rng.standard_normal((side, side), dtype=np.float32) for i in range(4)}


def _fsync_close(f) -> None:
    f.flush()
    os.fsync(f.fileno())
    f.close()


def raw_save(state, path):
    f = open(path, "wb")
    for a in state.values():
        f.write(memoryview(a).cast("B"))
    _fsync_close(f)


def raw_load(state, path):
    out = {}
    with open(path, "rb") as f:
        for k, a in state.items():
            b = np.empty_like(a)
            f.readinto(memoryview(b).cast("B"))
            out[k] = b
    return out


def npy_save(state, path):
    f = open(path, "wb")
    for a in state.values():
        np.save(f, a)
    _fsync_close(f)


def npy_load(state, path):
    with open(path, "rb") as f:
        return {k: np.load(f) for k in state}


def ours_save(state, path):
    ex = mg.Executor()
    for k, a in state.items():
        ex.add_tensor(k, mg.Tensor._wrap(a, None))
    Snapshot.from_executor(ex, 0, copy=False).save(path)  # capture and write at once, as SnapshotManager does


def ours_load(state, path):
    return Snapshot.load(path, SnapshotConfig(verify_checksum=True)).tensors


def engines():
    out = [("raw os.write/readinto", raw_save, raw_load), ("numpy.save/load", npy_save, npy_load),
           ("minigrad_ckpt snapshot", ours_save, ours_load)]
    try:
        from safetensors.numpy import load_file, save_file

        def st_save(state, path):
            save_file(state, path)
            fd = os.open(path, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)

        out.insert(2, ("safetensors", st_save, lambda state, path: load_file(path)))
    except ImportError:
        pass
    return out


def measure(state, directory, repeats):
    """Round 0 measures memory (tracemalloc, untimed: it slows allocation down);
    rounds 1..repeats are timed, with the engine order rotated every round."""
    nbytes = sum(a.nbytes for a in state.values())
    eng = engines()
    rows = {name: {"save": [], "load": [], "save_mem": 0, "load_mem": 0} for name, _, _ in eng}
    for r in range(repeats + 1):
        for name, save, load in eng[r % len(eng):] + eng[:r % len(eng)]:
            path = os.path.join(directory, f"bench-{abs(hash(name))}.bin")
            if r == 0:
                tracemalloc.start()
                save(state, path)
                rows[name]["save_mem"] = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                tracemalloc.start()
                loaded = load(state, path)
                rows[name]["load_mem"] = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                assert all(np.array_equal(loaded[k], state[k]) for k in state), name
            else:
                t0 = time.perf_counter()
                save(state, path)
                rows[name]["save"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                loaded = load(state, path)
                rows[name]["load"].append(time.perf_counter() - t0)
            del loaded
            os.remove(path)
    out = []
    raw = rows["raw os.write/readinto"]
    raw_save_t, raw_load_t = statistics.median(raw["save"]), statistics.median(raw["load"])
    for name, d in rows.items():
        s, ld = statistics.median(d["save"]), statistics.median(d["load"])
        out.append({"engine": name, "save_GBps": nbytes / s / 1e9, "load_GBps": nbytes / ld / 1e9,
                    "save_vs_raw": raw_save_t / s, "load_vs_raw": raw_load_t / ld,
                    "save_extra_mem": d["save_mem"] / nbytes, "load_extra_mem": d["load_mem"] / nbytes})
    return nbytes, out


def checksum_share(state, directory, repeats):
    """Share of save time due to the CRCs: save with them vs with the CRC worker's
    feed switched off (the file is then unverifiable; it is only timed)."""
    path = os.path.join(directory, "crc-bench.bin")
    times = {True: [], False: []}
    original = fmt.CrcWorker.feed
    try:
        for _ in range(repeats):
            for on in (True, False):
                fmt.CrcWorker.feed = original if on else (lambda self, key, chunk: None)
                t0 = time.perf_counter()
                ours_save(state, path)
                times[on].append(time.perf_counter() - t0)
    finally:
        fmt.CrcWorker.feed = original
    os.remove(path)
    with_crc, without = statistics.median(times[True]), statistics.median(times[False])
    return max(0.0, (with_crc - without) / with_crc)


def compression_cost(state, directory, repeats):
    """Save time with ``enable_compression`` over save time without, on ``state`` (incompressible
    random floats): the probe must make trying cost little.  Target: <= 1.3x."""
    path = os.path.join(directory, "zlib-bench.bin")
    ex = mg.Executor()
    for k, a in state.items():
        ex.add_tensor(k, mg.Tensor._wrap(a, None))
    times = {False: [], True: []}
    for _ in range(repeats):
        for on in (False, True):
            cfg = SnapshotConfig(enable_compression=on)
            t0 = time.perf_counter()
            Snapshot.from_executor_with_config(ex, 0, cfg, copy=False).save(path)
            times[on].append(time.perf_counter() - t0)
    os.remove(path)
    return statistics.median(times[True]) / statistics.median(times[False])


def main(argv=None):
    p = argparse.ArgumentParser(description="snapshot throughput")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir())
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 7)
    results = []
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        for kind, label in (("a", "200 x 256x256 f32"), ("b", "4 tensors, ~400 MB")):
            state = make_state(kind, args.quick)
            nbytes, rows = measure(state, d, repeats)
            share = checksum_share(state, d, max(3, repeats // 2))
            print(f"\nstate ({label}{', quick' if args.quick else ''}): {nbytes / 1e6:.1f} MB, written to {args.dir}")
            print(f"  {'engine':<24} {'save GB/s':>9} {'vs raw':>7} {'load GB/s':>9} {'vs raw':>7} "
                  f"{'save mem':>9} {'load mem':>9}")
            for r in rows:
                print(f"  {r['engine']:<24} {r['save_GBps']:>9.2f} {r['save_vs_raw']:>6.2f}x {r['load_GBps']:>9.2f} "
                      f"{r['load_vs_raw']:>6.2f}x {r['save_extra_mem']:>8.2f}x {r['load_extra_mem']:>8.2f}x")
            print(f"  checksums cost {share:.0%} of minigrad_ckpt's save time (CRC-32 runs in a helper thread)")
            zratio = compression_cost(state, d, max(3, repeats // 2))
            print(f"  enable_compression on this incompressible state: save takes {zratio:.2f}x the uncompressed "
                  f"save (target <= 1.3x)")
            results.append({"state": label, "bytes": nbytes, "rows": rows, "checksum_share": share,
                             "compression_save_ratio": zratio})
            del state
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
