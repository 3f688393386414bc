"""Regenerate ``tests/data/ported_seq2seq_translation_reference.npz``: PyTorch's run of
``examples/ported/seq2seq_translation.py`` (the tutorial "Translation with a Sequence to Sequence
Network and Attention"), read from its ported source with the rename undone, as
``make_ported_reference.py`` runs its programs (the same keys: ``<run>|init|...``, ``<run>|draw|<i>``,
``<run>|history``, ``<run>|final|...``).

    python tests/data/make_ported_seq2seq_translation.py        # needs torch; the tests do not

torch's ``RandomSampler`` draws its order with ``torch.randperm``, which is recorded with the other
draws; the test replays it.  Dropout is 0 (two engines' masks differ).
"""

from make_ported_reference import record_runs

RUNS = {
    "seq2seq_f64": ("seq2seq_translation", ["--double"]),  # tests/test_ported_seq2seq_translation.py replays these
    "seq2seq_f32": ("seq2seq_translation", ["--epochs", "1"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_seq2seq_translation_reference.npz")
