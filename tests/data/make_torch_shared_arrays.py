"""Record torch 2.13's answers for ``shared_array_cases.py``:
``python tests/data/make_torch_shared_arrays.py`` writes ``tests/data/torch_shared_arrays.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from torch.utils.data import default_convert

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from shared_array_cases import ARRAYS, answer  # noqa: E402


def main() -> None:
    out = {"torch": torch.__version__, "cases": {
        name: {"as_tensor": answer(torch.as_tensor, make()), "from_numpy": answer(torch.from_numpy, make()),
               "default_convert": answer(default_convert, make())}
        for name, make in ARRAYS.items()}}
    (HERE / "torch_shared_arrays.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
