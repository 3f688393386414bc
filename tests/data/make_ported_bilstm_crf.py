"""Regenerate ``tests/data/ported_bilstm_crf_reference.npz``: PyTorch's runs of
``examples/ported/bilstm_crf.py`` (the tutorial "Advanced: Making Dynamic Decisions and the Bi-LSTM
CRF"), read from the ported source with the rename undone, as ``make_ported_reference.py`` runs its
programs.  Its ``torch.randn`` draws (the transitions, and the LSTM's initial state on every
sentence) are recorded for the test to replay.

    python tests/data/make_ported_bilstm_crf.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_bilstm_crf.py replays these
    "bilstm_crf_f64": ("bilstm_crf", ["--double", "--epochs", "3"]),
    "bilstm_crf_f32": ("bilstm_crf", ["--epochs", "2"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_bilstm_crf_reference.npz")
