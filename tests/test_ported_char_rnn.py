"""The tutorials "Classifying Names" (``nn.RNN`` with SGD and clipping, and the earlier hand-written
cell with ``p.data.add_``) and "Generating Names with a Character-Level RNN", ported
(``examples/ported/char_rnn_*.py``), give PyTorch's numbers: the losses, the predictions and sampled
names, and the final weights of the torch runs ``tests/data/make_ported_char_rnn_*.py`` recorded,
from the same starting weights."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

RUNS = {  # run: (program, argv), as the generators ran them
    "classify_rnn_f64": ("char_rnn_classification", ["--model", "rnn", "--double"]),
    "classify_rnn_f32": ("char_rnn_classification", ["--model", "rnn", "--epochs", "1"]),
    "classify_cell_f64": ("char_rnn_classification", ["--model", "cell", "--double"]),
    "generate_f64": ("char_rnn_generation", ["--double"]),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_char_rnn_matches_pytorch(monkeypatch, run):
    program, argv = RUNS[run]
    ref = np.load(HERE / "data" / f"ported_{program}_reference.npz")
    run_and_compare(monkeypatch, ref, run, program, argv, float64="--double" in argv)
