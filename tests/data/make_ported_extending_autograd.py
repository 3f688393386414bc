"""Regenerate ``tests/data/ported_extending_autograd_reference.npz``: the PyTorch runs of
``examples/ported/extending_autograd.py`` (the "Extending torch.autograd" and "Extending torch.func" notes and
the "Double Backward with Custom Functions" tutorial), read with the rename undone, in float32 and float64
(``tests/test_ported_extending_autograd.py`` replays ``RUNS``).  The network of the notes' ``Linear`` starts
from ``ported_small.start_weights`` (seed 41); stored are the history (the notes' gradients, second
derivatives, ``gradcheck`` answers, the transforms' results and the training losses), ``ported_small.records``
of the final weights, and the lines the notes and the tutorial print (``<run>|log``).

    python tests/data/make_ported_extending_autograd.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"extending": [], "extending_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture_with_log

    out = Path(__file__).with_name("ported_extending_autograd_reference.npz")
    write_fixture_with_log("extending_autograd", RUNS, out, seed=41)


if __name__ == "__main__":
    main()
