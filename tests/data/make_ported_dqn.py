"""Regenerate ``tests/data/ported_dqn_reference.npz``: the PyTorch run of ``examples/ported/dqn.py``
(the tutorial "Reinforcement Learning (DQN)"), read with the rename undone (float32, as the
tutorial's states; ``tests/test_ported_dqn.py`` replays ``RUNS``).  Both sides start from
``ported_small.start_weights`` (seed 7 for the policy network, 8 for the target, which the program
then overwrites with the policy's); Python's ``random`` (exploration, replay sampling) is seeded in
the program, so both engines draw the same.  Stored: the episode lengths and the losses, and the
final weights of both networks (whole: they are small).

    python tests/data/make_ported_dqn.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

RUNS = {"dqn": []}

if __name__ == "__main__":
    write_fixture("dqn", RUNS, Path(__file__).with_name("ported_dqn_reference.npz"), seed=7, whole=("layer",))
