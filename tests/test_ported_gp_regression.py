"""Exact Gaussian-process regression in plain PyTorch, ported (``examples/ported/gp_regression.py``),
gives PyTorch's numbers: ``tests/data/make_ported_gp_regression.py`` ran the same source with the rename
undone under torch 2.13.  It exercises ``cdist``, ``softplus``-constrained 1-element parameters,
``linalg.cholesky``, ``cholesky_solve`` (its gradient in the factor reaches the kernel through the
Cholesky backward, which reads the factor's lower triangle), ``diagonal``, ``Adam``, ``linalg.solve``,
``logdet``, ``MultivariateNormal(covariance_matrix=)`` and ``linalg.solve_triangular``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_gp_regression_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"gp": ([], False), "gp_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_gp_regression_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("gp_regression", argv, REF, run, seed=37, float64=float64, whole=("raw_", "mean_constant"))
    history = REF[f"{run}|history"]
    np.testing.assert_allclose(history[6:9], history[6], rtol=1e-5 if not float64 else 1e-12)  # three ways agree
