"""bentrevett's "Upgraded Sentiment Analysis", ported (``examples/ported/upgraded_sentiment.py``), gives
PyTorch's numbers: ``tests/data/make_ported_upgraded_sentiment.py`` ran the same source with the rename
undone under torch 2.13.  It exercises a 2-layer bidirectional LSTM (and GRU) over
``pack_padded_sequence(..., enforce_sorted=False)`` / ``pad_packed_sequence``, the last layer's two
final hidden states, ``Embedding(padding_idx=)`` loaded through ``weight.data``, ``BCEWithLogitsLoss``,
``Adam``, ``round(sigmoid(...))`` accuracy and ``predict_sentiment`` on one unpadded sentence.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_upgraded_sentiment_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"lstm": ([], False), "lstm_f64": (["--double"], True),
        "gru_f64": (["--double", "--rnn", "gru"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_upgraded_sentiment_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("upgraded_sentiment", argv, REF, run, seed=29, float64=float64)
