"""DETR, ported (``examples/ported/detr.py``), gives PyTorch's numbers: the torch runs
``tests/data/make_ported_detr.py`` recorded, from torch's starting weights.  It exercises set prediction
end to end: the Hungarian matcher (``scipy.optimize.linear_sum_assignment`` on a cost built from
``softmax``, ``cdist(p=1)`` and generalized IoU under ``no_grad``), the matched predictions gathered by a
tuple of index tensors and written into a ``full`` target by one, ``cross_entropy`` over a transposed
``(batch, classes, queries)`` input with a class weight buffer, the GIoU loss through ``diag``, padded
images whose ``NestedTensor`` mask, resized by ``F.interpolate``, is ``MultiheadAttention``'s
``key_padding_mask``, the decoder's stacked intermediate outputs and their auxiliary losses, a
``FrozenBatchNorm2d`` backbone behind ``IntermediateLayerGetter`` (parameters frozen by name), AdamW over
two parameter groups, ``clip_grad_norm_``'s returned norm, ``StepLR`` and ``PostProcess``.  Float64
with learned position embeddings; float32 with the sine ones (detr computes them in float32)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("scipy")
sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


def test_detr_float64_matches_pytorch(monkeypatch):
    check_recorded_run(monkeypatch, "detr", "detr_double", ["--double", "--position_embedding", "learned"])


def test_detr_float32_sine_matches_pytorch(monkeypatch):
    check_recorded_run(monkeypatch, "detr", "detr_sine", [])
