"""What the tests of the ported programs recorded by ``ported_runs.py`` share (no torch here):
run ``examples/ported/<program>.py`` from the fixture's starting weights, replaying torch's draws,
and compare its history and final weights with torch's."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import numpy as np

import minigrad_ckpt as mg

PORTED = Path(__file__).parents[2] / "examples" / "ported"


def load_port(name: str):
    spec = importlib.util.spec_from_file_location(f"ported_{name}", PORTED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module  # where dataclasses look up the module of a class
    spec.loader.exec_module(module)
    return module


def stored_weights(ref, prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: ref[k] for k in ref.files if k.startswith(prefix)}


def _replay(ref, run: str, label: str, draws, called: list[str]):
    def draw(*args, **kwargs):
        i, expected = next(draws)
        assert expected == label, f"draw {i}: the program called mg.{label}, torch.{expected} at this point"
        called.append(label)
        value = mg.tensor(ref[f"{run}|draw|{i}"])
        if not label.startswith("Tensor."):
            return value
        with mg.no_grad():  # an in-place draw (x.bernoulli_(p)): torch's values written into x
            return args[0].copy_(value)
    return draw


def replay_draws(monkeypatch, ref, run: str) -> list[str]:
    """mg's functions (and Tensor methods) torch drew with give back, in order, torch's draws."""
    labels = [str(f) for f in ref[f"{run}|draw_fns"] if f]
    draws = iter(enumerate(labels))
    called: list[str] = []
    for label in set(labels):
        owner, name = (mg.Tensor, label[7:]) if label.startswith("Tensor.") else (mg, label)
        monkeypatch.setattr(owner, name, _replay(ref, run, label, draws, called))
    return called


def run_port(monkeypatch, ref, program: str, run: str, argv: list[str], first: str):
    """``main(argv)`` of the port, from run ``first``'s starting weights, with ``run``'s draws."""
    called = replay_draws(monkeypatch, ref, run)
    module = load_port(program)

    def init(key, model):
        model.load_state_dict(stored_weights(ref, f"{first}|init|{key}|"))

    with contextlib.redirect_stdout(io.StringIO()):
        history, models = module.main(argv, init=init)
    assert called == [str(f) for f in ref[f"{run}|draw_fns"] if f]
    return history, models if isinstance(models, tuple) else (models,)


def assert_matches_torch(ref, run: str, history, models, float64: bool) -> None:
    """float64 to 1e-10; float32 to round-off (Adam's and RMSprop's divisions by small roots move a
    weight by a fraction of a step)."""
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, ref[f"{run}|history"], rtol=rtol, atol=atol)
    keys = dict.fromkeys(k.split("|")[2] for k in ref.files if k.startswith(f"{run}|final|"))
    for key, model in zip(keys, models):
        state = model.state_dict()
        expected = stored_weights(ref, f"{run}|final|{key}|")
        assert list(state) == list(expected)
        for name, want in expected.items():
            got = state[name].numpy()
            assert got.dtype == want.dtype, f"{key}.{name}"
            np.testing.assert_allclose(got, want, rtol=1e-10 if float64 else 1e-4, atol=1e-12 if float64 else 1e-6,
                                       err_msg=f"{run}: {key}.{name}")


def reference(program: str):
    """``tests/data/ported_<program>_reference.npz``, which ``make_ported_<program>.py`` writes."""
    return np.load(Path(__file__).parent / f"ported_{program}_reference.npz")


def check_port(monkeypatch, program: str, run: str, argv: list[str], first: str, float64: bool):
    """:func:`run_port` then :func:`assert_matches_torch`; returns the history and the models."""
    ref = reference(program)
    history, models = run_port(monkeypatch, ref, program, run, argv, first)
    assert_matches_torch(ref, run, history, models, float64)
    return history, models
