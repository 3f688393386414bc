"""``examples/ported/swin_block.py`` (microsoft/Swin-Transformer's window attention, shifted windows,
relative position bias gathered through an index buffer, DropPath, PatchMerging; AdamW with param
groups, LinearLR warmup then CosineAnnealingLR through SequentialLR) gives PyTorch's numbers: the
torch runs ``tests/data/make_ported_swin_block.py`` recorded, from the same starting weights, with
torch's DropPath masks written back in the order torch drew them.  The final state's keys leave out
the unshifted block's ``None`` mask buffer and keep the index buffer int64 through ``model.to(float64)``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_swin_block_reference.npz")
RUNS = {  # run: argv, as tests/data/make_ported_swin_block.py ran them
    "swin_f64": ["--double"],
    "swin_f32": [],
}


@pytest.mark.parametrize("run", list(RUNS))
def test_swin_block_matches_pytorch(monkeypatch, run):
    run_and_compare(monkeypatch, REF, run, "swin_block", RUNS[run], float64="--double" in RUNS[run])
