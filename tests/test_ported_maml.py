"""``examples/ported/maml.py`` (MAML on sinusoids: MAML-Pytorch's fast weights from
``autograd.grad(create_graph=True)`` with a second-order outer gradient, and functorch's step by
``func.functional_call``, ``func.grad`` and ``func.vmap``; Adam as the meta-optimizer) gives
PyTorch's numbers: the torch runs ``tests/data/make_ported_maml.py`` recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_maml_reference.npz")
RUNS = {  # run: argv, as tests/data/make_ported_maml.py ran them
    "maml_f64": ["--double"],
    "maml_functional_f64": ["--double", "--functional"],
    "maml_f32": [],
    "maml_functional_f32": ["--functional"],
}


@pytest.mark.parametrize("run", list(RUNS))
def test_maml_matches_pytorch(monkeypatch, run):
    run_and_compare(monkeypatch, REF, run, "maml", RUNS[run], float64="--double" in RUNS[run])
