"""PyTorch's "Parametrizations" tutorial, ported (``examples/ported/parametrizations.py``), gives
PyTorch's numbers and prints: ``tests/data/make_ported_parametrizations.py`` ran the same source with
the rename undone under torch 2.13.  It exercises ``register_parametrization`` (one and chained:
``Skew`` + ``CayleyMap`` / ``MatrixExponential``, ``Symmetric`` + ``MatrixExponential``), the
``ParametrizationList`` (its ``original``, indexing, its printing: ``ModuleList(`` before), ``cached()``,
``right_inverse`` on assignment through a chain, a pruning mask as a parametrization,
``remove_parametrizations`` (``leave_parametrized`` both ways), and SGD through ``linalg.solve`` and
``matrix_exp`` under ``cached()``.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_parametrizations_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS = {"param": ([], False), "param_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_parametrizations_tutorial_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("parametrizations", argv, REF, run, seed=19, float64=float64)


def test_parametrizations_tutorial_prints_what_pytorch_prints():
    program = load_program("parametrizations")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program.main([])
    assert program.log == [str(line) for line in REF["param|log"]]
