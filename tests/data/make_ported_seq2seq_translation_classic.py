"""Regenerate ``tests/data/ported_seq2seq_translation_classic_reference.npz``: PyTorch's runs of
``examples/ported/seq2seq_translation_classic.py`` (the earlier, one-sentence-at-a-time version of
the tutorial "Translation with a Sequence to Sequence Network and Attention"), read from the ported
source with the rename undone, as ``make_ported_reference.py`` runs its programs.  Its pairs and its
teacher forcing are drawn with Python's ``random`` (seeded), so both engines take the same ones.

    python tests/data/make_ported_seq2seq_translation_classic.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_seq2seq_translation.py replays these
    "classic_f64": ("seq2seq_translation_classic", ["--double"]),
    "classic_f32": ("seq2seq_translation_classic", ["--iters", "4"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_seq2seq_translation_classic_reference.npz")
