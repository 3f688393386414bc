"""Regenerate ``tests/data/ported_char_rnn_generation_reference.npz``: PyTorch's run of
``examples/ported/char_rnn_generation.py`` (the tutorial "Generating Names with a
Character-Level RNN"), read from the ported source with the rename undone, as
``make_ported_reference.py`` runs its programs.  The examples are drawn with Python's ``random``
(seeded), so the two engines see the same ones; dropout is 0.

    python tests/data/make_ported_char_rnn_generation.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {"generate_f64": ("char_rnn_generation", ["--double"])}  # tests/test_ported_char_rnn.py replays it

if __name__ == "__main__":
    record_runs(RUNS, "ported_char_rnn_generation_reference.npz")
