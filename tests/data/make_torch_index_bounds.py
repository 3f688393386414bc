"""Record what PyTorch does for each call in index_bound_cases.py: the exception's builtin type and
message, or the shape of the result.

Run: python tests/data/make_torch_index_bounds.py  (needs torch; writes torch_index_bounds.json).
"""

import builtins
import json
import pathlib
import sys
import warnings

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from index_bound_cases import CASES, run  # noqa: E402


def _outcome(expression: str) -> dict:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = run(torch, expression)
    except Exception as e:  # noqa: BLE001 -- recording whatever torch raises is the point
        kind = next(c.__name__ for c in type(e).__mro__ if getattr(builtins, c.__name__, None) is c)
        return {"raises": kind, "message": str(e).splitlines()[0]}
    return {"shape": list(out.shape)}


def main() -> None:
    out = {"torch_version": torch.__version__, "cases": {name: _outcome(e) for name, e in CASES.items()}}
    pathlib.Path(__file__).with_name("torch_index_bounds.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
