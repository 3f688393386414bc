"""Record the exception type PyTorch raises for each call in attention_error_cases.py.

Run: python tests/data/make_attention_error_types.py  (needs torch; writes attention_error_types.json).
"""

import builtins
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from attention_error_cases import CASES, call  # noqa: E402


def _raised(case: tuple) -> str | None:
    try:
        call(torch, *case)
    except Exception as e:  # noqa: BLE001 -- recording whatever torch raises is the point
        return next(c.__name__ for c in type(e).__mro__ if getattr(builtins, c.__name__, None) is c)
    return None


def main() -> None:
    out = {"torch_version": torch.__version__, "raised": {name: _raised(case) for name, case in CASES.items()}}
    pathlib.Path(__file__).with_name("attention_error_types.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
