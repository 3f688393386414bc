"""The tutorial "Translation with a Sequence to Sequence Network and Attention", ported
(``examples/ported/seq2seq_translation.py``), gives PyTorch's numbers: the losses, the greedy
decodings and their attention weights, and the final weights of ``make_ported_seq2seq_translation.py``'s
torch run, from the same starting weights and sampler order."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_seq2seq_translation_reference.npz")
RUNS = {"seq2seq_f64": (["--double"], True), "seq2seq_f32": (["--epochs", "1"], False)}


@pytest.mark.parametrize("run", list(RUNS))
def test_seq2seq_translation_matches_pytorch(monkeypatch, run):
    argv, float64 = RUNS[run]
    run_and_compare(monkeypatch, REF, run, "seq2seq_translation", argv, float64)
