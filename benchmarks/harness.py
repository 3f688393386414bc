"""Timing and memory harness for benchmarks/run.py (see its docstring for the method)."""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.engines import BENCHMARKS

FLOOR = "numpy (by hand)"


def _first_result_check(name: str, results: dict[str, Any], floor: str = FLOOR) -> list[str]:
    """Every engine's first step against the floor (loss and gradients): the hand-written
    NumPy step, or the reference engine a benchmark names (``"floor"`` in its spec)."""
    problems = []
    if floor not in results:
        return [f"{name}: the reference engine {floor!r} is not installed: nothing to compare with"]
    ref = results[floor]
    for engine, got in results.items():
        if engine == floor:
            continue
        if name == "per_op":
            ok = np.allclose(np.asarray(got), ref, rtol=1e-10, atol=1e-12)
        else:
            (l_ref, g_ref), (l_got, g_got) = ref, got
            ok = abs(float(l_got) - float(l_ref)) <= 1e-4 * max(1.0, abs(float(l_ref))) and all(
                np.allclose(np.asarray(a), b, rtol=1e-3, atol=1e-5) for a, b in zip(g_got, g_ref))
        if not ok:
            problems.append(f"{name}: {engine}'s first step disagrees with {floor}")
    return problems


def _calibrate(step: Callable[[], Any], target: float = 0.05) -> int:
    t0 = time.perf_counter()
    step()
    dt = max(time.perf_counter() - t0, 1e-6)
    return max(1, int(target / dt))


def _peak_extra(step: Callable[[], Any]) -> int:
    step()
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


#: The clocks a sample can be read with.  ``cpu`` is the process's CPU time: on a machine
#: shared with other jobs, time spent descheduled is not counted (with one BLAS thread
#: per engine the step's CPU time is its work); ``wall`` is what a user waits.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def run_benchmarks(names: list[str], rounds: int = 15, threads: int = 1, clock: str = "wall") -> dict[str, Any]:
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass
    out: dict[str, Any] = {"threads": threads, "rounds": rounds, "clock": clock, "benchmarks": {}}
    now = CLOCKS[clock]
    problems: list[str] = []
    started = time.perf_counter()
    for name in names:
        spec = BENCHMARKS[name]
        floor = spec.get("floor", FLOOR)
        args = spec["setup"]()
        check_args = spec["check_setup"]() if "check_setup" in spec else args
        builders = {e: b for e, b in spec["engines"].items()}
        first = {}
        for engine, build in builders.items():
            step = build(*check_args)
            if step is None:
                continue
            first[engine] = step()
        if floor in first:
            problems += _first_result_check(name, first, floor)
        elif "minigrad_ckpt" in first:  # the reference (PyTorch) is not installed: time this engine alone
            print(f"\n{name}: {floor} is not installed; minigrad_ckpt alone, no ratio")
            floor = "minigrad_ckpt"
        else:
            continue
        steps = {e: build(*args) for e, build in builders.items() if e in first}
        inner = {e: _calibrate(s) for e, s in steps.items()}
        samples: dict[str, list[float]] = {e: [] for e in steps}
        order = list(steps)
        for r in range(rounds):
            rot = order[r % len(order):] + order[:r % len(order)]
            for e in rot:
                gc.collect()
                t0 = now()
                for _ in range(inner[e]):
                    steps[e]()
                samples[e].append((now() - t0) / inner[e] * spec["scale"])
        mem = {e: _peak_extra(build(*args)) for e, build in builders.items() if e in first} if name != "per_op" else {}
        rows = {}
        for e, v in samples.items():
            q = statistics.quantiles(v, n=4) if len(v) >= 2 else [v[0], v[0], v[0]]
            rows[e] = {"median": statistics.median(v), "p25": q[0], "p75": q[2], "peak_extra_bytes": mem.get(e)}
        out["benchmarks"][name] = {"unit": spec["unit"], "floor": floor, "engines": rows}
        _print(name, spec["unit"], rows, floor)
        print(f"  ({time.perf_counter() - started:.0f} s since the start)", flush=True)
    out["float32_check"] = _float32_check()
    print(f"\nfloat32 check (every array the memory ledger saw in an MLP step): {out['float32_check']}")
    out["problems"] = problems
    for p in problems:
        print("PROBLEM:", p)
    return out


def _print(name: str, unit: str, rows: dict[str, dict[str, Any]], floor_engine: str = FLOOR) -> None:
    floor = rows[floor_engine]["median"]
    torch_t = rows.get("torch", {}).get("median")
    print(f"\n{name} ({unit}, median of interleaved samples, p25-p75)")
    print(f"  {'engine':<18} {'median':>9} {'p25-p75':>17} {'x floor':>8} {'x torch':>8} {'extra peak MiB':>15}")
    for e, r in rows.items():
        vs_t = f"{r['median'] / torch_t:7.2f}x" if torch_t else "      --"
        mem = "" if r["peak_extra_bytes"] is None else f"{r['peak_extra_bytes'] / 2**20:15.1f}"
        print(f"  {e:<18} {r['median']:9.3f} {r['p25']:8.3f}-{r['p75']:<8.3f} {r['median'] / floor:7.2f}x {vs_t} {mem}")


def _float32_check() -> str:
    import minigrad_ckpt as mg
    from benchmarks.engines import init_layers, mlp_data, mlp_minigrad

    step = mlp_minigrad(init_layers([784, 256, 256, 10]), *mlp_data())
    with mg.memory.track() as ledger:
        step()
    dtypes = sorted(ledger.dtypes)
    floats = [d for d in dtypes if d.startswith("float")]
    if floats != ["float32"]:
        raise AssertionError(f"a float32 MLP step held arrays of dtypes {dtypes}: hidden float64")
    return f"ok, dtypes seen: {dtypes}"
