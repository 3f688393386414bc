"""Regenerate ``tests/data/ported_dist_tuto.json``: torch 2.13's run of ``examples/ported/dist_tuto.py`` (PyTorch's
"Writing Distributed Applications" tutorial) from its ported source with the rename undone
(``minigrad_ckpt`` -> ``torch``), two ranks on gloo started as the tutorial's template starts them
(``torch.multiprocessing.Process`` each calling ``init_process(rank, size, run)``).

    python tests/data/make_ported_dist_tuto.py        # needs torch; the tests do not

Read by ``tests/test_ported_dist_tuto.py``.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("ported_dist_tuto.json")


def as_torch_program() -> types.ModuleType:
    source = (ROOT / "examples" / "ported" / "dist_tuto.py").read_text().replace("minigrad_ckpt", "torch")
    module = types.ModuleType("dist_tuto_torch")
    exec(compile(source, "dist_tuto_torch", "exec"), module.__dict__)
    return module


def rank_main(module: types.ModuleType, rank: int, size: int, queue: multiprocessing.Queue) -> None:
    module.init_process(rank, size, lambda r, s: queue.put((r, module.run(r, s))))


def main() -> None:
    module = as_torch_program()
    ctx = multiprocessing.get_context("fork")  # (the exec'd module is not importable by a spawned child)
    queue = ctx.Queue()
    processes = [ctx.Process(target=rank_main, args=(module, rank, 2, queue)) for rank in range(2)]
    for p in processes:
        p.start()
    results = dict(queue.get(timeout=120) for _ in processes)
    for p in processes:
        p.join(timeout=60)
    OUT.write_text(json.dumps({str(r): results[r] for r in sorted(results)}, indent=None) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
