"""Regenerate ``tests/data/torch_float_overflow.json``: for each case of ``float_overflow_cases.py``,
whether torch 2.13 raises (and its message) or the values it answers, with the dtype.

    python tests/data/make_torch_float_overflow.py     # needs torch; the tests do not

Read by ``tests/test_float_fill_overflow.py``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from float_overflow_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_float_overflow.json")


def _number(v):
    if isinstance(v, complex):
        return [_number(v.real), _number(v.imag)]
    return None if math.isnan(v) else (str(v) if math.isinf(v) else v)


def main() -> None:
    out = {}
    for name, case in CASES.items():
        try:
            y = case(torch, None)
        except RuntimeError as e:
            out[name] = {"raises": type(e).__name__, "message": str(e)}
            continue
        out[name] = {"values": [_number(v) for v in y.detach().tolist()], "dtype": str(y.dtype).split(".")[-1]}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
