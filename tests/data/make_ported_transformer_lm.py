"""Regenerate ``tests/data/ported_transformer_lm_reference.npz``: PyTorch's runs of
``examples/ported/transformer_lm.py`` (the tutorial "Language Modeling with nn.Transformer and
torchtext"), read from the ported source with the rename undone, as ``make_ported_reference.py``
runs its programs.  Dropout is 0 (two engines' masks differ).

    python tests/data/make_ported_transformer_lm.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_transformer_lm.py replays these
    "transformer_lm_f64": ("transformer_lm", ["--double"]),
    "transformer_lm_f32": ("transformer_lm", ["--epochs", "2"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_transformer_lm_reference.npz")
