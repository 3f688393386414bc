"""Neural tangent kernels, ported (``examples/ported/neural_tangent_kernels.py``: the Jacobian contraction by
``vmap(jacrev(...))`` and ``einsum``, and the NTK-vector products by ``vjp`` then ``jvp`` under two nested
``vmap``s), gives torch 2.13's kernels in their full, trace and diagonal forms, with parameters detached
and not (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_neural_tangent_kernels_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS, SEED, KEEP, WHOLE = SMALL["neural_tangent_kernels"]


@pytest.mark.parametrize("run", list(RUNS))
def test_neural_tangent_kernels_matches_pytorch(run):
    argv = RUNS[run]
    check_run("neural_tangent_kernels", argv, REF, run, seed=SEED, float64="--double" in argv, keep=KEEP, whole=WHOLE)
