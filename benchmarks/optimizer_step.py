"""An optimizer step over large parameters: a piece at a time against the whole arrays (and torch).

A transformer's step is mostly its optimizer's: twelve 2048x512 float32 weights are 12.6M numbers,
and a rule written on whole arrays makes about ten temporaries of each weight's size.  The engine
steps a parameter of 1 MiB or more 64 KiB at a time (``Optimizer.piecewise_rule``); this prints,
per optimizer, the median ms of a step with the pieces and with them switched off, alternating in
one process, and torch's step where torch is installed::

    python benchmarks/optimizer_step.py                 # twelve 2048x512 float32 parameters
    python benchmarks/optimizer_step.py --shape 256x256 --steps 21

One BLAS thread (the rules are elementwise: NumPy's loops do not use it; torch's do, so it is pinned).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import minigrad_ckpt as mg  # noqa: E402

tensor_module = sys.modules["minigrad_ckpt.tensor"]
OPTIMIZERS = {
    "Adam, weight decay": lambda lib, ps: lib.optim.Adam(ps, lr=1e-5, weight_decay=5e-4, eps=5e-9),
    "Adam": lambda lib, ps: lib.optim.Adam(ps, lr=1e-5),
    "AdamW, amsgrad": lambda lib, ps: lib.optim.AdamW(ps, lr=1e-5, amsgrad=True),
    "RMSprop, centered, momentum": lambda lib, ps: lib.optim.RMSprop(ps, lr=1e-3, centered=True, momentum=0.9),
}


def _parameters(lib, weights, grads):
    ps = [lib.nn.Parameter(lib.tensor(w.copy())) for w in weights]
    for p, g in zip(ps, grads):
        p.grad = lib.tensor(g.copy())
    return ps


def _median_ms(times):
    return 1e3 * float(np.median(times))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", default="2048x512", help="each parameter's shape, e.g. 2048x512")
    ap.add_argument("--count", type=int, default=12, help="how many parameters")
    ap.add_argument("--steps", type=int, default=11, help="steps timed per path (alternating)")
    args = ap.parse_args(argv)
    shape = tuple(int(n) for n in args.shape.split("x"))
    rs = np.random.RandomState(0)
    weights = [rs.randn(*shape).astype(np.float32) for _ in range(args.count)]
    grads = [rs.randn(*shape).astype(np.float32) for _ in range(args.count)]
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print(f"{args.count} float32 parameters of {args.shape}, median ms of {args.steps} steps each")
    print(f"{'optimizer':30s} {'pieces':>8s} {'whole':>8s} {'torch':>8s}  pieces/torch")
    piece_bytes = tensor_module._CHUNK_BYTES
    for name, make in OPTIMIZERS.items():
        opt = make(mg, _parameters(mg, weights, grads))
        topt = make(torch, _parameters(torch, weights, grads)) if torch else None
        opt.step()  # (makes the state)
        if topt:
            topt.step()
        times = {"pieces": [], "whole": [], "torch": []}
        try:
            for _ in range(args.steps):
                for path in ("pieces", "whole", "torch"):
                    if path == "torch" and topt is None:
                        continue
                    tensor_module._CHUNK_BYTES = piece_bytes if path == "pieces" else 1 << 60
                    t0 = time.perf_counter()
                    (topt if path == "torch" else opt).step()
                    times[path].append(time.perf_counter() - t0)
        finally:
            tensor_module._CHUNK_BYTES = piece_bytes
        pieces, whole = _median_ms(times["pieces"]), _median_ms(times["whole"])
        t = _median_ms(times["torch"]) if times["torch"] else None
        ratio = f"{pieces / t:12.2f}x" if t else ""
        print(f"{name:30s} {pieces:8.1f} {whole:8.1f} {t if t else float('nan'):8.1f}  {ratio}", flush=True)


if __name__ == "__main__":
    main()
