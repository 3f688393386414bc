"""Regenerate ``tests/data/torch_untracked_writes.json``: torch's gradients for the programs of
``untracked_write_programs.py`` (a write off the tape after a recorded write into shared memory).

    python tests/data/make_torch_untracked_writes.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from untracked_write_programs import PROGRAMS, run  # noqa: E402

OUT = Path(__file__).with_name("torch_untracked_writes.json")


def main() -> None:
    answers = {name: run(torch, name) for name in PROGRAMS}
    answers["__torch__"] = torch.__version__
    OUT.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in answers.items()) + "\n}\n")


if __name__ == "__main__":
    main()
