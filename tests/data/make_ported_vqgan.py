"""Regenerate ``tests/data/ported_vqgan_reference.npz``: ``examples/ported/vqgan.py`` run as torch from its
ported source with the rename undone (``ported_record.py``), in float64 with the BatchNorm discriminator and
hinge loss and with the ActNorm discriminator and vanilla loss; ``tests/test_ported_vqgan.py`` replays it.

    python tests/data/make_ported_vqgan.py        # needs torch; the test does not

Nothing is drawn after the models are built (the start weights are ``ported_init``'s, LPIPS' frozen
stand-in weights come from NumPy, the LPIPS dropout is off); the history is kept: every logged loss of
each step and the codes of the first batch after training.  The final weights are not: after three Adam
steps, a weight whose gradients are round-off (a few 1e-12) has moved by a different lr-sized step in each
engine (2.7e-11 apart).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_record import record  # noqa: E402

RUNS = {"vqgan_f64": ["--double"], "vqgan_actnorm_vanilla_f64": ["--double", "--actnorm", "--disc_loss", "vanilla"]}

if __name__ == "__main__":
    record("vqgan", RUNS, HERE / "ported_vqgan_reference.npz", final_weights=())
