"""Regenerate ``tests/data/ported_char_rnn_classification_reference.npz``: PyTorch's runs of
``examples/ported/char_rnn_classification.py`` (the tutorial "Classifying Names with a
Character-Level RNN": its ``nn.RNN`` version and its earlier hand-written cell), read from the
ported source with the rename undone, as ``make_ported_reference.py`` runs its programs.  The
examples are drawn with Python's ``random`` (seeded), so the two engines see the same ones.

    python tests/data/make_ported_char_rnn_classification.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_char_rnn.py replays these
    "classify_rnn_f64": ("char_rnn_classification", ["--model", "rnn", "--double"]),
    "classify_rnn_f32": ("char_rnn_classification", ["--model", "rnn", "--epochs", "1"]),
    "classify_cell_f64": ("char_rnn_classification", ["--model", "cell", "--double"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_char_rnn_classification_reference.npz")
