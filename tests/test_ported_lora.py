"""LoRA fine-tuning, ported (``examples/ported/lora.py``: ``parametrize.register_parametrization`` of a
low-rank add on frozen Linear weights, ``requires_grad = False`` by name, Adam over all parameters, the
LoRA switched off and on, the merge by ``remove_parametrizations(leave_parametrized=True)``; ``--manual``: a
wrapper module with ``requires_grad_(False)``), gives torch 2.13's numbers: losses, error counts, parameter
counts, flags and the final weights (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_lora_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS, SEED, KEEP, WHOLE = SMALL["lora"]


@pytest.mark.parametrize("run", list(RUNS))
def test_lora_matches_pytorch(run):
    argv = RUNS[run]
    check_run("lora", argv, REF, run, seed=SEED, float64="--double" in argv, keep=KEEP, whole=WHOLE)
