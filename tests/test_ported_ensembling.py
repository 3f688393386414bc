"""Model ensembling, ported (``examples/ported/ensembling.py``: ``stack_module_state`` and ``vmap`` over
``functional_call``, the same and different minibatches; ``--batchnorm`` models whose running statistics
come in as stacked buffers), gives torch 2.13's numbers: the stacked parameters' sizes and leafness, the
ensemble's predictions, Adam steps of the stacked parameters against each model's own, and the final
weights (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_ensembling_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS, SEED, KEEP, WHOLE = SMALL["ensembling"]


@pytest.mark.parametrize("run", list(RUNS))
def test_ensembling_matches_pytorch(run):
    argv = RUNS[run]
    check_run("ensembling", argv, REF, run, seed=SEED, float64="--double" in argv, keep=KEEP, whole=WHOLE)
