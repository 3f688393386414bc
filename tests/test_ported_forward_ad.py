"""PyTorch's "Forward-mode Automatic Differentiation" tutorial, ported (``examples/ported/forward_ad.py``),
gives PyTorch's numbers and prints: ``tests/data/make_ported_forward_ad.py`` ran the same source with the
rename undone under torch 2.13.  It exercises ``forward_ad.dual_level``, ``make_dual`` (the tangent kept, or
copied for another layout), ``unpack_dual`` (None for a plain tensor and after the level), dual parameters
swapped into a module with ``delattr``/``setattr`` and through ``functional_call``, a custom Function's
``jvp`` with ``gradcheck(check_forward_ad=True)``, and ``mg.func.jvp`` of functions, of a
``functools.partial`` and of a module's parameters.
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
REF = np.load(HERE / "data" / "ported_forward_ad_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS = {"fwad": ([], False), "fwad_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_forward_ad_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("forward_ad", argv, REF, run, seed=53, float64=float64)


@pytest.mark.parametrize("run", list(RUNS))
def test_forward_ad_prints_what_pytorch_prints(run):
    program = load_program("forward_ad")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program.main(RUNS[run][0])
    assert program.log == [str(line) for line in REF[f"{run}|log"]]
