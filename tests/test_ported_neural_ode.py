"""``examples/ported/neural_ode.py`` (torchdiffeq's ``ode_demo`` with a hand-written RK4, backprop
through the solver and RMSprop; FFJORD's Hutchinson, brute-force and ``func.jacrev`` divergences in a
continuous normalizing flow trained through ``autograd.grad(create_graph=True)``) gives PyTorch's
numbers: the torch runs ``tests/data/make_ported_neural_ode.py`` recorded.  With ``--checkpoint``
every RK4 step runs under ``mg.utils.checkpoint.checkpoint``: the history and the weights are the
plain run's to the bit."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


@pytest.mark.parametrize("run, argv", [("ode_f64", ["--double"]), ("ode_f32", [])])
def test_neural_ode_matches_pytorch(monkeypatch, run, argv):  # as tests/data/make_ported_neural_ode.py ran them
    check_recorded_run(monkeypatch, "neural_ode", run, argv)


def test_checkpointing_each_solver_step_changes_no_bit():
    from ported_replay import load_program, weights

    ref = np.load(Path(__file__).parent / "data" / "ported_neural_ode_reference.npz")

    ode = load_program("neural_ode")

    def run(argv):
        def init(key, model):
            model.load_state_dict(weights(ref, f"ode_f64|init|{key}|"))

        with contextlib.redirect_stdout(io.StringIO()):
            history, models = ode.main(argv, init=init)
        return history, [value.numpy() for model in models for value in model.state_dict().values()]

    plain, plain_weights = run(["--double"])
    checkpointed, checkpointed_weights = run(["--double", "--checkpoint"])
    assert plain == checkpointed
    assert all(np.array_equal(a, b) for a, b in zip(plain_weights, checkpointed_weights))
