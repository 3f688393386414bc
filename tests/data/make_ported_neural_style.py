"""Regenerate ``tests/data/ported_neural_style_reference.npz``: the PyTorch runs of
``examples/ported/neural_style.py`` (the tutorial "Neural Transfer Using PyTorch"), read with the
rename undone, in float64 (``tests/test_ported_neural_style.py`` replays ``RUNS``).  The
feature extractor starts from ``ported_small.start_weights`` (seed 11); stored are the style and
content scores of every LBFGS closure call, the final image's sum and sum of squares, and
``ported_small.records`` of the (frozen) extractor.

    python tests/data/make_ported_neural_style.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

RUNS = {"neural_style_f64": ["--double"]}  # float32 parts from torch by round-off at the 7th call

if __name__ == "__main__":
    write_fixture("neural_style", RUNS, Path(__file__).with_name("ported_neural_style_reference.npz"), seed=11)
