"""The distribution programs of tests/data/distribution_cases.py (``Uniform`` and ``MixtureSameFamily``,
alone, under ``Independent``, in KL, under ``mg.func.grad`` and ``mg.func.jvp``) give torch 2.13's answers,
recorded by tests/data/make_torch_distributions.py, in float64 and float32: values, dtypes and shapes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.func as func
from minigrad_ckpt import distributions as D

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from distribution_cases import CASES, MIXTURE_CASES  # noqa: E402
from distribution_replay import replay  # noqa: E402

TORCH = np.load(DATA / "torch_distributions.npz")
TOL = {"float64": 1e-12, "float32": 5e-6}


@pytest.fixture(autouse=True)
def _default_validation():
    D.Distribution.set_default_validate_args(True)
    yield
    D.Distribution.set_default_validate_args(True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES + MIXTURE_CASES, ids=lambda c: c.__name__)
def test_the_programs_give_torchs_answers(case, dtype):
    replay(case, dtype, TORCH, TOL[dtype], mg, D, func)
