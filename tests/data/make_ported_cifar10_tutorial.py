"""Regenerate ``tests/data/ported_cifar10_tutorial_reference.npz``: the PyTorch runs of
``examples/ported/cifar10_tutorial.py`` (the 60 Minute Blitz's "Training a Classifier"), read with the rename
undone, in float32 and float64 (``tests/test_ported_cifar10_tutorial.py`` replays ``RUNS``).  The net starts
from ``ported_small.start_weights`` (seed 47); stored are the history (the running losses, the count of
correct test answers, the accuracy of each class present) and ``ported_small.records`` of the final weights
(those of the net read back by ``load_state_dict(load(PATH))``).

    python tests/data/make_ported_cifar10_tutorial.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"cifar": [], "cifar_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture

    out = Path(__file__).with_name("ported_cifar10_tutorial_reference.npz")
    write_fixture("cifar10_tutorial", RUNS, out, seed=47)


if __name__ == "__main__":
    main()
