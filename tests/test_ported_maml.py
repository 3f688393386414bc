"""``examples/ported/maml.py`` (MAML on sinusoids: MAML-Pytorch's fast weights from
``autograd.grad(create_graph=True)`` with a second-order outer gradient, and functorch's step by
``func.functional_call``, ``func.grad`` and ``func.vmap``; Adam as the meta-optimizer) gives
PyTorch's numbers: the torch runs ``tests/data/make_ported_maml.py`` recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


@pytest.mark.parametrize("run, argv", [("maml_f64", ["--double"]), ("maml_f32", []),
                                       ("maml_functional_f64", ["--double", "--functional"]),
                                       ("maml_functional_f32", ["--functional"])])
def test_maml_matches_pytorch(monkeypatch, run, argv):  # as tests/data/make_ported_maml.py ran them
    check_recorded_run(monkeypatch, "maml", run, argv)
