"""Record what torch 2.13 answers for each call in operator_extreme_cases.py: every result tensor's
dtype, shape and values (a tuple of results in order; ``None`` for a gradient not reached), or the
builtin type of the exception and its first line.

Run: python tests/data/make_torch_operator_extremes.py  (needs torch; writes torch_operator_extremes.json).
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from operator_extreme_cases import CASES, run  # noqa: E402
from torch_outcomes import outcome  # noqa: E402


def _record(out):
    if out is None:
        return None
    if isinstance(out, (tuple, list)):
        return {"tuple": [_record(o) for o in out]}
    if not hasattr(out, "dtype"):
        return {"python": out}
    return {"dtype": str(out.dtype).replace("torch.", ""), "shape": list(out.shape),
            "values": out.detach().reshape(-1).tolist()}


def _outcome(torch, expression: str) -> dict:
    return outcome(lambda: run(torch, expression), lambda out: {"result": _record(out)})


def main() -> None:
    import torch

    out = {"torch_version": torch.__version__, "cases": {name: _outcome(torch, e) for name, e in CASES.items()}}
    path = pathlib.Path(__file__).with_name("torch_operator_extremes.json")
    lines = [f" {json.dumps(name)}: {json.dumps(case)}" for name, case in out["cases"].items()]  # a case a line
    head = '{"torch_version": ' + json.dumps(out["torch_version"]) + ', "cases": {\n'
    path.write_text(head + ",\n".join(lines) + "\n}}\n")


if __name__ == "__main__":
    main()
