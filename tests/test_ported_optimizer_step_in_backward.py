"""PyTorch's "How to save memory by fusing the optimizer step into the backward pass" tutorial, ported
(``examples/ported/optimizer_step_in_backward.py``), gives PyTorch's numbers and prints:
``tests/data/make_ported_optimizer_step_in_backward.py`` ran the same source with the rename undone under
torch 2.13.  It exercises a small vision transformer (strided ``Conv2d`` patches, a class token,
``TransformerEncoderLayer(norm_first=True, activation="gelu")``), ``Adam`` stepped after backward, and one
``Adam([p], foreach=False)`` per parameter stepped and zeroed by ``register_post_accumulate_grad_hook``
inside backward, which must give the same weights and leave no gradient behind.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_optimizer_step_in_backward_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run, log_program_test  # noqa: E402

RUNS = {"fused": ([], False), "fused_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_optimizer_step_in_backward_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("optimizer_step_in_backward", argv, REF, run, seed=61, float64=float64,
              excused={"in_proj_bias": slice(16, 32)})  # the generator's EXCUSED
    history = REF[f"{run}|history"].reshape(2, -1)
    np.testing.assert_allclose(history[1], history[0], rtol=1e-5 if not float64 else 1e-12)  # the same losses


test_optimizer_step_in_backward_prints_what_pytorch_prints = log_program_test(
    "optimizer_step_in_backward", {run: argv for run, (argv, _) in RUNS.items()})
