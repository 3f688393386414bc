"""Regenerate ``tests/data/torch_seams.json``: torch's answers to the programs of the seams between
forward mode, the transforms, in-place writes and checkpoints --

* ``dual_lineage``: ``dual_lineage_programs.py`` (values and tangents of tensors sharing memory with a
  dual handle; ``tests/test_forward_mode_dual_lineage.py``);
* ``argument_writes``: ``argument_write_programs.py`` (in-place writes into a differentiated argument
  on a graph; ``tests/test_transform_argument_writes.py``);
* ``untracked_writes``: ``untracked_write_programs.py`` (a write off the tape after a recorded write
  into shared memory; ``tests/test_checkpoint_untracked_writes.py``);
* ``vmap_writes``: ``vmap_write_programs.py`` (in-place writes under ``vmap`` into a tensor the
  function closes over; ``tests/test_vmap_captured_writes.py``), float64 and float32;
* ``later_writes``: ``later_write_programs.py`` (the tensor a transform differentiated at, written
  after it returned; ``tests/test_transform_argument_later_written.py``);

and ``tests/data/torch_seam_mix.json``: ``seam_mix_programs.py`` (random whole programs mixing views,
in-place writes, detach, no_grad, hooks, retain_grad, checkpoint and the transforms;
``tests/test_seam_mix_programs.py``).

    python tests/data/make_torch_seams.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
import argument_write_programs  # noqa: E402
import dual_lineage_programs  # noqa: E402
import later_write_programs  # noqa: E402
import seam_mix_programs  # noqa: E402
import untracked_write_programs  # noqa: E402
import vmap_write_programs  # noqa: E402

OUT = Path(__file__).with_name("torch_seams.json")
MIX = Path(__file__).with_name("torch_seam_mix.json")


def _rounded(v):  # 12 digits: the fixture stays small, the tests compare to 1e-10
    if isinstance(v, list):
        return [_rounded(u) for u in v]
    return v if v is None else float(f"{v:.12g}")


def _floats_rounded(v):  # the floats of a nested answer to 12 digits (bools, strings and None as they are)
    if isinstance(v, dict):
        return {k: _floats_rounded(u) for k, u in v.items()}
    if isinstance(v, list):
        return [_floats_rounded(u) for u in v]
    return float(f"{v:.12g}") if type(v) is float else v


def main() -> None:
    warnings.simplefilter("ignore")
    lineage, arguments, untracked = dual_lineage_programs, argument_write_programs, untracked_write_programs
    answers = {
        "dual_lineage": {name: lineage.run(torch, name) for name in list(lineage.PROGRAMS) + list(lineage.TRANSFORMED)},
        "argument_writes": {name: arguments.run(torch, name) for name in arguments.PROGRAMS},
        "untracked_writes": {name: untracked.run(torch, name) for name in untracked.PROGRAMS},
        "vmap_writes": {dtype: {name: vmap_write_programs.run(torch, name, "cpu", dtype)
                                for name in [*vmap_write_programs.PROGRAMS, *vmap_write_programs.REPEATED]}
                        for dtype in ("float64", "float32")},
        "later_writes": {f"{name} / {write}": later_write_programs.run(torch, name, write)
                         for name in later_write_programs.PROGRAMS for write in later_write_programs.WRITES},
        "__torch__": torch.__version__,
    }
    answers["dual_lineage"]["random"] = [_rounded(lineage.run_random(torch, seed)) for seed in lineage.SEEDS]
    OUT.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in answers.items()) + "\n}\n")
    mix = {str(seed): _floats_rounded(seam_mix_programs.run(torch, seed)) for seed in seam_mix_programs.SEEDS}
    MIX.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in mix.items()) + "\n}\n")


if __name__ == "__main__":
    main()
