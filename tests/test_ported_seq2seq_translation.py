"""The tutorial "Translation with a Sequence to Sequence Network and Attention", ported
(``examples/ported/seq2seq_translation.py``), gives PyTorch's numbers: the losses, the greedy
decodings and their attention weights, and the final weights of the torch runs
``tests/data/make_ported_seq2seq_translation*.py`` recorded, from the same starting weights and
sampler order; and so does the tutorial's earlier version (one sentence at a time,
``examples/ported/seq2seq_translation_classic.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

RUNS = {  # run: (program, argv), as tests/data/make_ported_seq2seq_translation*.py ran them
    "seq2seq_f64": ("seq2seq_translation", ["--double"]),
    "seq2seq_f32": ("seq2seq_translation", ["--epochs", "1"]),
    "classic_f64": ("seq2seq_translation_classic", ["--double"]),
    "classic_f32": ("seq2seq_translation_classic", ["--iters", "4"]),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_seq2seq_translation_matches_pytorch(monkeypatch, run):
    program, argv = RUNS[run]
    ref = np.load(HERE / "data" / f"ported_{program}_reference.npz")
    run_and_compare(monkeypatch, ref, run, program, argv, float64="--double" in argv)
