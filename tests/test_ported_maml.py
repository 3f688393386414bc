"""``examples/ported/maml.py`` (MAML on sinusoids: MAML-Pytorch's fast weights from
``autograd.grad(create_graph=True)`` with a second-order outer gradient, and functorch's step by
``func.functional_call``, ``func.grad`` and ``func.vmap``; Adam as the meta-optimizer) gives
PyTorch's numbers: ``tests/data/make_ported_maml.py`` ran the same source as a torch program
(offline; torch is not needed here).  The two ways agree with each other to round-off as well.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_check import check_port, reference  # noqa: E402


@pytest.mark.parametrize("run, argv, float64", [
    ("maml_f64", ["--double"], True), ("maml_functional_f64", ["--double", "--functional"], True),
    ("maml_f32", [], False), ("maml_functional_f32", ["--functional"], False)])
def test_maml_matches_pytorch(monkeypatch, run, argv, float64):
    history, _ = check_port(monkeypatch, "maml", run, argv, "maml_f64", float64)
    np.testing.assert_allclose(history, reference("maml")["maml_f64|history"], rtol=1e-10 if float64 else 2e-5,
                               atol=1e-12 if float64 else 2e-6)  # the two ways: one meta-gradient
