"""Regenerate ``tests/data/ported_made_reference.npz``: the PyTorch runs of ``examples/ported/made.py``
(karpathy's ``pytorch-made``), read with the rename undone, in float32 and float64 (``tests/test_ported_made.py``
replays ``RUNS``).  Both sides start every MADE the program builds (the autoregressive check's and the trained
one) from ``ported_small.start_weights`` (seed 7), their masks
kept; stored are the history (the check's counts, each batch's loss,
the mask seed) and ``ported_small.records`` of the trained model's final weights and masks.

    python tests/data/make_ported_made.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

RUNS = {"made": ["--num-masks", "3", "--samples", "2"], "made_f64": ["--num-masks", "3", "--samples", "2", "--double"],
        "made_one_mask": ["--hiddens", "24"]}
KEEP = ("net.0.mask", "net.2.mask", "net.4.mask")  # the masks stay the program's (NumPy's)

if __name__ == "__main__":
    write_fixture("made", RUNS, Path(__file__).with_name("ported_made_reference.npz"), seed=7, keep=KEEP)
