"""Regenerate ``tests/data/ported_learning_pytorch_examples_reference.npz``: the PyTorch runs of
``examples/ported/learning_pytorch_examples.py`` ("Learning PyTorch with Examples"), read with the rename undone,
in float32 and float64, through ``ported_record.record_draws``: torch's ``randn`` draws (the weights of
the polynomials and modules) for the test to replay, the two ``nn.Linear`` models from
``ported_init.start_weights``; stored is the history (the printed losses and the fitted coefficients).
``tests/test_ported_learning_pytorch_examples.py`` replays them.

    python tests/data/make_ported_learning_pytorch_examples.py     # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
RUNS = {"examples_f64": ["--double"], "examples": []}


def main() -> None:
    sys.path.insert(0, str(HERE))
    from ported_record import record_draws

    record_draws("learning_pytorch_examples", RUNS, HERE / "ported_learning_pytorch_examples_reference.npz")


if __name__ == "__main__":
    main()
