"""The tutorial "Adversarial Example Generation" (FGSM), ported (``examples/ported/fgsm.py``), gives
PyTorch's numbers: ``tests/data/make_ported_fgsm.py`` ran the same source with the rename undone
under torch 2.13.  The attack reads the loss's gradient in the input (``data.requires_grad = True``,
``data.grad.data``), its ``sign()``, a ``clamp`` to [0, 1], and the predictions
``output.max(1, keepdim=True)[1]`` of a model in eval mode with dropout layers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_fgsm_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"fgsm": ([], False), "fgsm_f64": (["--double"], True)}  # make_ported_fgsm.py's list


@pytest.mark.parametrize("run", list(RUNS))
def test_fgsm_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("fgsm", argv, REF, run, seed=5, float64=float64)
