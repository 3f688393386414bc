"""Make tests/data/torch_grid_sample_arguments.json: what torch 2.13 raises (type, message) or warns
for each call of ``grid_sample_argument_cases.py``.

Run offline (torch is never a test dependency):  python tests/data/make_torch_grid_sample_arguments.py
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
from grid_sample_argument_cases import cases


def main() -> None:
    out = {}
    for name, call in cases(torch, F).items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                call()
                out[name] = {"raised": None, "message": None}
            except Exception as e:  # noqa: BLE001 - any exception is what is recorded
                out[name] = {"raised": type(e).__name__, "message": str(e).replace("torch.", "")}
        out[name]["warnings"] = [str(w.message) for w in caught]
    path = Path(__file__).with_name("torch_grid_sample_arguments.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
