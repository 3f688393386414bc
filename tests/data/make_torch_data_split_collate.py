"""Record torch 2.13's answers for ``data_split_collate_cases.py``:
``python tests/data/make_torch_data_split_collate.py`` writes
``tests/data/torch_data_split_collate.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import torch.utils.data as data

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from data_split_collate_cases import COLLATE, SPLITS, collate, split, tensor_dataset  # noqa: E402


def main() -> None:
    out = {"torch": torch.__version__,
           "splits": [[n, lengths, split(data, n, lengths)] for n, lengths in SPLITS],
           "collate": {name: collate(data, make()) for name, make in COLLATE.items()},
           "tensor_dataset": {case: tensor_dataset(data, torch, case) for case in ("none", "0d")}}
    (HERE / "torch_data_split_collate.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
