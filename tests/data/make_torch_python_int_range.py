"""Record torch 2.13's answers for ``python_int_range_cases.py``:
``python tests/data/make_torch_python_int_range.py`` writes ``tests/data/torch_python_int_range.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from torch.utils.data import default_collate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from python_int_range_cases import BATCHES, TENSORS, answer  # noqa: E402


def main() -> None:
    out = {"torch": torch.__version__,
           "tensor": {name: answer(lambda d, t: torch.tensor(d, dtype=t and getattr(torch, t)), *case)
                      for name, case in TENSORS.items()},
           "collate": {name: answer(default_collate, batch) for name, batch in BATCHES.items()}}
    (HERE / "torch_python_int_range.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
