"""The tutorial "Advanced: Making Dynamic Decisions and the Bi-LSTM CRF", ported
(``examples/ported/bilstm_crf.py``), gives PyTorch's numbers: the Viterbi scores and paths before
and after training, each sentence's negative log-likelihood, and the final weights of the torch runs
``tests/data/make_ported_bilstm_crf.py`` recorded, from the same weights and ``randn`` draws."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_bilstm_crf_reference.npz")
RUNS = {"bilstm_crf_f64": ["--double", "--epochs", "3"], "bilstm_crf_f32": ["--epochs", "2"]}


@pytest.mark.parametrize("run", list(RUNS))
def test_bilstm_crf_matches_pytorch(monkeypatch, run):
    run_and_compare(monkeypatch, REF, run, "bilstm_crf", RUNS[run], float64="--double" in RUNS[run])
