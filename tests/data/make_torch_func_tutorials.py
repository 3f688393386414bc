"""Regenerate ``tests/data/torch_func_tutorials.npz``: torch 2.13's answers to the programs of PyTorch's
function-transform and custom-Function tutorials (``func_tutorial_programs.py``), which
``tests/test_func_tutorials.py`` compares the engine with.

    python tests/data/make_torch_func_tutorials.py        # needs torch; the tests do not

Stored: ``<program>|<dtype>|<path>`` for every array a program returns.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
import func_tutorial_programs as tp  # noqa: E402

OUT = Path(__file__).with_name("torch_func_tutorials.npz")


def main() -> None:
    stored = {}
    for name in tp.PROGRAMS:
        for dtype in tp.DTYPES.get(name, ("float64",)):
            for path, value in tp.run(torch, name, "cpu", dtype).items():
                stored[f"{name}|{dtype}|{path}"] = value
    np.savez_compressed(OUT, **stored)
    values = sum(v.size for v in stored.values())
    print(f"{OUT.name}: {len(stored)} arrays, {values} values (torch {torch.__version__})")


if __name__ == "__main__":
    main()
