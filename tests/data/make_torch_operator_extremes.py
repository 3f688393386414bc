"""Record what torch 2.13 answers for each call in operator_extreme_cases.py: every result tensor's
dtype, shape and values (a tuple of results in order; ``None`` for a gradient not reached), or the
builtin type of the exception and its first line.

Run: python tests/data/make_torch_operator_extremes.py  (needs torch; writes torch_operator_extremes.json).
"""

import builtins
import json
import pathlib
import sys
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from operator_extreme_cases import CASES, run  # noqa: E402


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
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = run(torch, expression)
    except Exception as e:  # noqa: BLE001 -- recording whatever torch raises is the point
        kind = next(c.__name__ for c in type(e).__mro__ if getattr(builtins, c.__name__, None) is c)
        return {"raises": kind, "message": str(e).splitlines()[0]}
    return {"result": _record(out)}


def main() -> None:
    import torch

    out = {"torch_version": torch.__version__, "cases": {name: _outcome(torch, e) for name, e in CASES.items()}}
    path = pathlib.Path(__file__).with_name("torch_operator_extremes.json")
    lines = [f" {json.dumps(name)}: {json.dumps(case)}" for name, case in out["cases"].items()]  # a case a line
    head = '{"torch_version": ' + json.dumps(out["torch_version"]) + ', "cases": {\n'
    path.write_text(head + ",\n".join(lines) + "\n}}\n")


if __name__ == "__main__":
    main()
