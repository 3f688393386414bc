"""Record what ``torch.utils.data.default_convert`` (a ``DataLoader`` with ``batch_size=None``) and
``default_collate`` of two samples give for the NumPy objects of ``default_convert_cases.py``:
``python tests/data/make_torch_default_convert_kinds.py`` writes
``tests/data/torch_default_convert_kinds.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from torch.utils.data import default_collate, default_convert

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from default_convert_cases import cases, describe  # noqa: E402


def answer(fn, obj):
    try:
        return describe(fn(obj))
    except Exception as exc:  # noqa: BLE001 -- the error type is the answer
        return ["error", type(exc).__name__]


def main() -> None:
    out = {"torch": torch.__version__, "convert": {}, "collate": {}}
    for name, obj in cases().items():
        out["convert"][name] = answer(default_convert, obj)
        out["collate"][name] = answer(lambda o: default_collate([o, o]), obj)
    (HERE / "torch_default_convert_kinds.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
