"""Regenerate ``tests/data/torch_batch_norm_flags.json``: torch's answers for the programs of
``batch_norm_flag_programs.py`` (float32 and float64).

    python tests/data/make_torch_batch_norm_flags.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from batch_norm_flag_programs import CASES, MODES, run  # noqa: E402

OUT = Path(__file__).with_name("torch_batch_norm_flags.json")


def main() -> None:
    logs = {f"{case}/{modes}/{dtype}": run(torch, case, MODES[modes], dtype)
            for case in CASES for modes in MODES for dtype in ("float32", "float64")}
    logs["__torch__"] = torch.__version__
    OUT.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in logs.items()) + "\n}\n")


if __name__ == "__main__":
    main()
