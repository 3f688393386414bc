"""Regenerate ``tests/data/torch_integer_creation.json``: torch 2.13's ``torch.tensor(data, dtype=...)``
of Python numbers into an integer dtype -- the values, or the error's type and message.

    python tests/data/make_torch_integer_creation.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from integer_creation_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_integer_creation.json")


def answer(data, dtype: str) -> dict:
    try:
        return {"values": torch.tensor(data, dtype=getattr(torch, dtype)).tolist()}
    except Exception as exc:  # noqa: BLE001 (the answer is the error)
        return {"error": type(exc).__name__, "message": str(exc)}


if __name__ == "__main__":
    OUT.write_text(json.dumps([answer(d, t) for d, t in CASES], indent=1) + "\n")
    print(f"wrote {OUT}")
