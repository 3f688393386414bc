"""Regenerate ``tests/data/torch_print_options.json``: torch 2.13's ``repr`` of each tensor of
``print_option_cases.CASES`` after ``torch.set_printoptions(profile="default", **options)``, and
``torch._tensor_str.get_printoptions()`` after it.

    python tests/data/make_torch_print_options.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from print_option_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_print_options.json")


def answer(options: dict, values: list, dtype: str) -> dict:
    torch.set_printoptions(profile="default")
    torch.set_printoptions(**options)
    try:
        return {"repr": repr(torch.tensor(values, dtype=getattr(torch, dtype))),
                "options": {k: (None if v == float("inf") else v)  # JSON has no inf: None stands for it
                            for k, v in torch._tensor_str.get_printoptions().items()}}
    finally:
        torch.set_printoptions(profile="default")


if __name__ == "__main__":
    OUT.write_text(json.dumps([answer(*case) for case in CASES], indent=1) + "\n")
    print(f"wrote {OUT}")
