"""The tutorial "Jacobians, Hessians, hvp, vhp, and more", ported (``examples/ported/jacobians_hessians.py``),
gives torch 2.13's numbers: Jacobians by ``autograd.grad`` rows, ``vmap`` of ``vjp``, ``jacrev``/``jacfwd``
(``argnums``), Hessians three ways, batch Jacobians and Hessians, hvp by forward-over-reverse and
reverse-over-reverse, ``autograd.functional``, ``linearize``, and a Hessian's gradient in the weights, each
with its ``requires_grad`` (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_jacobians_hessians_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS, SEED, KEEP, WHOLE = SMALL["jacobians_hessians"]


@pytest.mark.parametrize("run", list(RUNS))
def test_jacobians_hessians_matches_pytorch(run):
    argv = RUNS[run]
    check_run("jacobians_hessians", argv, REF, run, seed=SEED, float64="--double" in argv, keep=KEEP, whole=WHOLE)
