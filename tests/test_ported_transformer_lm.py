"""The tutorial "Language Modeling with nn.Transformer and torchtext", ported
(``examples/ported/transformer_lm.py``), gives PyTorch's numbers: each batch's loss, the validation
losses and learning rates, the test loss of the best model (saved and loaded back), and the final
weights of the torch runs ``tests/data/make_ported_transformer_lm.py`` recorded, from the same
weights."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_transformer_lm_reference.npz")
RUNS = {"transformer_lm_f64": ["--double"], "transformer_lm_f32": ["--epochs", "2"]}


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # torch's warning too (batch_first=False)
@pytest.mark.parametrize("run", list(RUNS))
def test_transformer_lm_matches_pytorch(monkeypatch, run):
    run_and_compare(monkeypatch, REF, run, "transformer_lm", RUNS[run], float64="--double" in RUNS[run])
