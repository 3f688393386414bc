"""``examples/ported/swin_block.py`` (microsoft/Swin-Transformer's window attention, shifted windows,
relative position bias gathered through an index buffer, DropPath, PatchMerging; AdamW with param
groups, LinearLR warmup then CosineAnnealingLR through SequentialLR) gives PyTorch's numbers: the
torch runs ``tests/data/make_ported_swin_block.py`` recorded, from the same starting weights, with
torch's DropPath masks written back in the order torch drew them.  The final state's keys leave out
the unshifted block's ``None`` mask buffer and keep the index buffer int64 through ``model.to(float64)``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


@pytest.mark.parametrize("run, argv", [("swin_f64", ["--double"]), ("swin_f32", [])])
def test_swin_block_matches_pytorch(monkeypatch, run, argv):  # as tests/data/make_ported_swin_block.py ran them
    check_recorded_run(monkeypatch, "swin_block", run, argv)
