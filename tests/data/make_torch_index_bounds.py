"""Record what PyTorch does for each call in index_bound_cases.py: the exception's builtin type and
message, or the shape of the result.

Run: python tests/data/make_torch_index_bounds.py  (needs torch; writes torch_index_bounds.json).
"""

import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from index_bound_cases import CASES, run  # noqa: E402
from torch_outcomes import outcome  # noqa: E402


def _outcome(expression: str) -> dict:
    return outcome(lambda: run(torch, expression), lambda out: {"shape": list(out.shape)})


def main() -> None:
    out = {"torch_version": torch.__version__, "cases": {name: _outcome(e) for name, e in CASES.items()}}
    pathlib.Path(__file__).with_name("torch_index_bounds.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
