"""Regenerate ``tests/data/ported_rainbow_dqn_reference.npz``: the PyTorch run of
``examples/ported/rainbow_dqn.py`` (RL-Adventure's "Rainbow" notebook, its CartPole part), read with the
rename undone (``ported_record.py``): the noisy layers' ``torch.randn`` draws (at construction and after
each step), the episode rewards and the losses, and the trained network's final weights, noise buffers included.
Both sides start from ``ported_init.start_weights``; Python's ``random`` (replay sampling) is seeded in
the program, so both engines draw the same.

    python tests/data/make_ported_rainbow_dqn.py     # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_record import record  # noqa: E402

RUNS = {"rainbow_dqn": []}

if __name__ == "__main__":
    record("rainbow_dqn", RUNS, HERE / "ported_rainbow_dqn_reference.npz", final_weights=("rainbow_dqn",))
