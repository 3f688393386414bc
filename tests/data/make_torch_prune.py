"""Regenerate ``tests/data/torch_prune.npz``: torch's answers for the programs of ``prune_programs.py``
(float32 and float64; arrays as float64, the rest as strings).

    python tests/data/make_torch_prune.py        # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from prune_programs import run  # noqa: E402

OUT = Path(__file__).with_name("torch_prune.npz")


def main() -> None:
    answers = {f"{dtype}/{k}": v for dtype in ("float32", "float64") for k, v in run(torch, dtype).items()}
    answers["__torch__"] = torch.__version__
    np.savez_compressed(OUT, **{k: np.asarray(v) for k, v in answers.items()})


if __name__ == "__main__":
    main()
