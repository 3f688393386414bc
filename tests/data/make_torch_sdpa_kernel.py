"""Regenerate ``tests/data/torch_sdpa_kernel.json``: for each backends expression of
``sdpa_kernel_cases.BACKENDS`` and call of ``CALLS``, what torch 2.13 (CPU) answers inside
``torch.nn.attention.sdpa_kernel(backends)``: "ok", or the error's type and message.

    python tests/data/make_torch_sdpa_kernel.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F  # noqa: N812
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, str(Path(__file__).parent))
from sdpa_kernel_cases import BACKENDS, CALLS  # noqa: E402

OUT = Path(__file__).with_name("torch_sdpa_kernel.json")


def answer(backends: str, call: str) -> dict:
    scope = {"B": SDPBackend, "F": F, "lib": torch, "q": torch.randn(1, 2, 4, 8)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the reasons a fused kernel was not used
            with sdpa_kernel(eval(backends, scope)) as entered:  # noqa: S307 (the cases are this file's own)
                eval(call, scope)  # noqa: S307
        return {"answer": "ok", "entered": entered}
    except Exception as exc:  # noqa: BLE001 (the answer is the error)
        return {"answer": "error", "error": type(exc).__name__, "message": str(exc)}


if __name__ == "__main__":
    table = {f"{b} | {name}": answer(b, call) for b in BACKENDS for name, call in CALLS.items()}
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {OUT}")
