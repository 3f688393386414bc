"""``examples/ported/neural_ode.py`` (torchdiffeq's ``ode_demo`` with a hand-written RK4, backprop
through the solver and RMSprop; FFJORD's Hutchinson, brute-force and ``func.jacrev`` divergences in a
continuous normalizing flow trained through ``autograd.grad(create_graph=True)``) gives PyTorch's
numbers: ``tests/data/make_ported_neural_ode.py`` ran the same source as a torch program (offline).

With ``--checkpoint`` every RK4 step runs under ``mg.utils.checkpoint.checkpoint``: the losses,
gradient norms and weights are the plain run's to the bit.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
PORTED = HERE.parent / "examples" / "ported"
REF = np.load(HERE / "data" / "ported_neural_ode_reference.npz")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"ported_{name}", PORTED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module
    spec.loader.exec_module(module)
    return module


def _weights(prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: REF[k] for k in REF.files if k.startswith(prefix)}


def _run(argv):
    ode = _load("neural_ode")

    def init(key, model):
        model.load_state_dict(_weights(f"ode_f64|init|{key}|"))

    with contextlib.redirect_stdout(io.StringIO()):
        history, (func, diffeq) = ode.main(argv, init=init)
    return history, {"func": func.state_dict(), "diffeq": diffeq.state_dict()}


@pytest.mark.parametrize("run, argv, float64", [("ode_f64", ["--double"], True), ("ode_f32", [], False)])
def test_neural_ode_matches_pytorch(run, argv, float64):
    history, states = _run(argv)
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, REF[f"{run}|history"], rtol=rtol, atol=atol)
    for key, state in states.items():
        for name, want in _weights(f"{run}|final|{key}|").items():
            np.testing.assert_allclose(state[name].numpy(), want, rtol=1e-10 if float64 else 1e-4,
                                       atol=1e-12 if float64 else 1e-6, err_msg=f"{key}.{name}")


def test_checkpointing_each_solver_step_changes_no_bit():
    plain, plain_states = _run(["--double"])
    checkpointed, states = _run(["--double", "--checkpoint"])
    assert plain == checkpointed
    for key, state in states.items():
        for name, value in state.items():
            assert np.array_equal(value.numpy(), plain_states[key][name].numpy()), f"{key}.{name}"
