"""``examples/ported/neural_ode.py`` (torchdiffeq's ``ode_demo`` with a hand-written RK4, backprop
through the solver and RMSprop; FFJORD's Hutchinson, brute-force and ``func.jacrev`` divergences in a
continuous normalizing flow trained through ``autograd.grad(create_graph=True)``) gives PyTorch's
numbers: ``tests/data/make_ported_neural_ode.py`` ran the same source as a torch program (offline).

With ``--checkpoint`` every RK4 step runs under ``mg.utils.checkpoint.checkpoint``: the losses,
gradient norms and weights are the plain run's to the bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_check import check_port, reference, run_port  # noqa: E402


@pytest.mark.parametrize("run, argv, float64", [("ode_f64", ["--double"], True), ("ode_f32", [], False)])
def test_neural_ode_matches_pytorch(monkeypatch, run, argv, float64):
    check_port(monkeypatch, "neural_ode", run, argv, "ode_f64", float64)


def test_checkpointing_each_solver_step_changes_no_bit(monkeypatch):
    ref = reference("neural_ode")
    plain, plain_models = run_port(monkeypatch, ref, "neural_ode", "ode_f64", ["--double"], "ode_f64")
    checkpointed, models = run_port(monkeypatch, ref, "neural_ode", "ode_f64", ["--double", "--checkpoint"],
                                    "ode_f64")
    assert plain == checkpointed
    for model, plain_model in zip(models, plain_models):
        for (name, value), plain_value in zip(model.state_dict().items(), plain_model.state_dict().values()):
            assert np.array_equal(value.numpy(), plain_value.numpy()), name
