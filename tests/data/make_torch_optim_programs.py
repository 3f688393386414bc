"""Record torch's answers to the programs of ``optim_torch_programs.py`` (the error type and words,
or the value): ``python tests/data/make_torch_optim_programs.py`` writes
``tests/data/torch_optim_programs.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from optim_torch_programs import CASES  # noqa: E402


def outcome(case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"value": case(torch)}
    except Exception as exc:  # noqa: BLE001 -- the error is the answer
        return {"error": type(exc).__name__, "message": str(exc)}


def main() -> None:
    out = {"torch": torch.__version__, "cases": {name: outcome(case) for name, case in CASES.items()}}
    (HERE / "torch_optim_programs.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
