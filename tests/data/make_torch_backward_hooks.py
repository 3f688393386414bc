"""Regenerate ``tests/data/torch_backward_hooks.json``: torch's logs of the programs in
``backward_hook_programs.py`` (what full backward hooks and pre-hooks saw, and the gradients), for
float32 and float64 on the CPU.

    python tests/data/make_torch_backward_hooks.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from backward_hook_programs import PROGRAMS  # noqa: E402

OUT = Path(__file__).with_name("torch_backward_hooks.json")


def main() -> None:
    warnings.simplefilter("ignore")  # torch warns when a full backward hook fires at the outputs
    logs = {f"{p.__name__}/{dtype}": p(torch, dtype, "cpu") for p in PROGRAMS for dtype in ("float32", "float64")}
    logs["__torch__"] = torch.__version__
    OUT.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in logs.items()) + "\n}\n")


if __name__ == "__main__":
    main()
