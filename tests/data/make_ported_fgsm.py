"""Regenerate ``tests/data/ported_fgsm_reference.npz``: the PyTorch runs of ``examples/ported/fgsm.py``
(the tutorial "Adversarial Example Generation"), read with the rename undone, in float32 and float64
(``tests/test_ported_fgsm.py`` replays ``RUNS``).  Both sides start from ``ported_small.start_weights``
(seed 5); stored are the history (the pretraining losses, each epsilon's accuracy, the kept adversarial
examples' predictions and pixel sums) and ``ported_small.records`` of the final weights.

    python tests/data/make_ported_fgsm.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

RUNS = {"fgsm": [], "fgsm_f64": ["--double"]}

if __name__ == "__main__":
    write_fixture("fgsm", RUNS, Path(__file__).with_name("ported_fgsm_reference.npz"), seed=5)
