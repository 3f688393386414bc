"""The tutorial "Text classification with the torchtext library", ported
(``examples/ported/text_sentiment_ngrams.py``: ``nn.EmbeddingBag`` with offsets, SGD with
``StepLR``, ``clip_grad_norm_``), gives PyTorch's numbers: each batch's loss, the accuracies and
learning rates, the predictions, and the final weights of the torch runs
``tests/data/make_ported_text_sentiment_ngrams.py`` recorded, from the same weights and orders."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_text_sentiment_ngrams_reference.npz")
RUNS = {"text_f64": ["--double"], "text_f32": ["--epochs", "2"]}


@pytest.mark.parametrize("run", list(RUNS))
def test_text_sentiment_ngrams_matches_pytorch(monkeypatch, run):
    run_and_compare(monkeypatch, REF, run, "text_sentiment_ngrams", RUNS[run], float64="--double" in RUNS[run])
