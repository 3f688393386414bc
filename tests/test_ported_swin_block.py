"""``examples/ported/swin_block.py`` (microsoft/Swin-Transformer's window attention, shifted windows,
relative position bias, DropPath, PatchMerging; AdamW with param groups, LinearLR warmup then
CosineAnnealingLR through SequentialLR) gives PyTorch's numbers: ``tests/data/make_ported_swin_block.py``
ran the same source as a torch program (offline; torch is not needed here).

Both runs start from the same weights; DropPath's masks (``x.new_empty(shape).bernoulli_(keep)``)
are torch's, written back in the order torch drew them.  float64 agrees to 1e-10, float32 to round-off;
the final state's keys leave out the unshifted block's ``None`` mask buffer and keep the index buffer
int64 through ``model.to(float64)``, as torch's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_check import check_port  # noqa: E402


@pytest.mark.parametrize("run, argv, float64", [("swin_f64", ["--double"], True), ("swin_f32", [], False)])
def test_swin_block_matches_pytorch(monkeypatch, run, argv, float64):
    check_port(monkeypatch, "swin_block", run, argv, "swin_f64", float64)
