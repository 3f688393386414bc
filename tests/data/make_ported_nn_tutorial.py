"""Regenerate ``tests/data/ported_nn_tutorial_reference.npz``: the PyTorch runs of
``examples/ported/nn_tutorial.py`` ("What is torch.nn really?"), read with the rename undone, in float32
and float64, through ``ported_record.record_draws`` (``record`` without its recording of ``uniform_`` fills:
the layers' own initialization, which the starting weights replace): torch's ``randn`` (the hand-made
weights) and ``randperm`` (the shuffles) draws are recorded for the test to replay, each model starts
from ``ported_init.start_weights``; stored is the history (losses, accuracies, validation losses after
every fit), not the final weights (the history after each fit depends on all of them; the fixture stays
small).  ``tests/test_ported_nn_tutorial.py`` replays them.

    python tests/data/make_ported_nn_tutorial.py     # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
RUNS = {"nn_f64": ["--double"], "nn": []}


def main() -> None:
    sys.path.insert(0, str(HERE))
    from ported_record import record_draws

    record_draws("nn_tutorial", RUNS, HERE / "ported_nn_tutorial_reference.npz")


if __name__ == "__main__":
    main()
