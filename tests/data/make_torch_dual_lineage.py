"""Regenerate ``tests/data/torch_dual_lineage.json``: torch's answers to the programs of
``dual_lineage_programs.py`` (values and tangents of tensors sharing memory with a dual handle).

    python tests/data/make_torch_dual_lineage.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from dual_lineage_programs import PROGRAMS, SEEDS, TRANSFORMED, run, run_random  # noqa: E402

OUT = Path(__file__).with_name("torch_dual_lineage.json")


def _rounded(v):  # 12 digits: the fixture stays small, the tests compare to 1e-10
    if isinstance(v, list):
        return [_rounded(u) for u in v]
    return v if v is None else float(f"{v:.12g}")


def main() -> None:
    answers = {name: run(torch, name) for name in list(PROGRAMS) + list(TRANSFORMED)}
    answers["random"] = [_rounded(run_random(torch, seed)) for seed in SEEDS]
    answers["__torch__"] = torch.__version__
    OUT.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in answers.items()) + "\n}\n")


if __name__ == "__main__":
    main()
