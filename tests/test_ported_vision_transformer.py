"""A from-scratch Vision Transformer, ported (``examples/ported/vision_transformer.py``), gives
PyTorch's numbers: ``tests/data/make_ported_vision_transformer.py`` ran the same source with the
rename undone under torch 2.13.  It exercises a strided ``Conv2d`` patch embedding,
``flatten(2).transpose(1, 2)``, a class token ``Parameter`` ``expand``-ed over the batch, a learned
position embedding, ``nn.TransformerEncoder`` (``batch_first``, ``norm_first``, GELU), ``LayerNorm``,
``CrossEntropyLoss(label_smoothing=0.1)``, ``AdamW`` and ``CosineAnnealingLR``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_vision_transformer_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"vit": ([], False), "vit_f64": (["--double"], True)}  # the generator's list
EXCUSED = {"in_proj_bias": slice(16, 32)}  # the key bias: a true gradient of 0, moved by round-off


def _layers_are_clones(model):
    # nn.TransformerEncoder deep-copies its layer, as PyTorch's: every layer starts the same
    state = model.state_dict()
    for name, value in state.items():
        if name.startswith("encoder.layers.1."):
            np.testing.assert_array_equal(value.numpy(), state[name.replace(".1.", ".0.", 1)].numpy())


@pytest.mark.parametrize("run", list(RUNS))
def test_vision_transformer_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("vision_transformer", argv, REF, run, seed=13, float64=float64, whole=("cls_token", "pos_embed"),
              built=_layers_are_clones, excused=EXCUSED)
