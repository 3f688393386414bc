"""Regenerate ``tests/data/torch_out_arguments.json``: torch 2.13's answer to each ``out=`` call of
``out_argument_cases.CASES`` -- the result (its values, dtype and shape, and whether it is ``out``) and
the warnings, or the error's type and message.

    python tests/data/make_torch_out_arguments.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from out_argument_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_out_arguments.json")


def _plain(result: torch.Tensor) -> list:
    """The values as JSON holds them: a complex number as [real, imag]."""
    return torch.view_as_real(result).tolist() if result.is_complex() else result.tolist()


def answer(expression: str, values: bool) -> dict:
    made = []

    def o(*shape, dtype=torch.float32):
        made.append(torch.empty(shape, dtype=dtype))
        return made[-1]

    scope = {"lib": torch, "a": torch.ones(2, 3), "b": torch.ones(3, 2), "o": o}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(expression, scope)  # noqa: S307 (the cases are this file's own)
        except Exception as exc:  # noqa: BLE001 (the answer is the error)
            return {"error": type(exc).__name__, "message": str(exc)}
    said = [re.sub(r" \(Triggered internally at .*\)$", "", str(w.message)) for w in caught]
    return {"is_out": result is (made[-1] if made else scope["a"]), "dtype": str(result.dtype).replace("torch.", ""),
            "shape": list(result.shape), "values": _plain(result) if values else None, "warnings": said}


if __name__ == "__main__":
    OUT.write_text(json.dumps({case_id: answer(expr, values) for case_id, expr, values in CASES}, indent=1) + "\n")
    print(f"wrote {OUT}")
