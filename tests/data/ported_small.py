"""What the small-fixture ported-program tests share with their generators (torch-free):
the starting weights both sides load, a run's record of its final weights (whole for the few
named, ``weight_digest`` sums for the rest, so a fixture stays small), and a run compared
(programs load through ``ported_replay.load_program``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from ported_init import reference_weights, weight_digest
from ported_replay import load_program


def start_weights(state: dict[str, Any], seed: int, keep: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """``ported_init.reference_weights`` for every floating entry of ``state`` (a state_dict)
    whose name starts with none of ``keep`` (those keep what the program built); a complex entry
    (complex64, complex128) gets two draws of its real dtype, its real and imaginary parts."""
    shapes, dtype, complex_dtypes = {}, None, {}
    for name, value in state.items():
        kind = str(value.dtype).rsplit(".", 1)[-1]
        if kind.startswith("float") and not name.startswith(keep):
            shapes[name], dtype = tuple(value.shape), kind
        elif kind.startswith("complex") and not name.startswith(keep):
            complex_dtypes[name] = kind
    weights = reference_weights(shapes, seed=seed, dtype=dtype or "float32")
    for i, (name, kind) in enumerate(complex_dtypes.items()):
        shape, real = tuple(state[name].shape), "float64" if kind == "complex128" else "float32"
        parts = reference_weights({"re": shape, "im": shape}, seed=seed + 1000 + i, dtype=real)
        weights[name] = (parts["re"] + 1j * parts["im"]).astype(kind)
    return weights


def final_record(state: dict[str, np.ndarray], whole: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Each final weight (float64 arrays) as it is when its name starts with one of ``whole``,
    else as its ``weight_digest``."""
    return {name: value if name.startswith(whole) else weight_digest(value) for name, value in state.items()}


def run_program(program: Any, argv: list[str], seed: int, keep: tuple[str, ...], load: Any) -> tuple[list, list]:
    """``program.main(argv, init)`` with each model it builds started from ``start_weights``
    (``seed`` + the model's place in the order of ``init`` calls; ``load(model, weights)`` loads
    them, as each engine must); returns the history and the models, in that order."""
    built: list[Any] = []

    def init(key: str, model: Any) -> None:
        load(model, start_weights(model.state_dict(), seed + len(built), keep))
        built.append(model)

    history, models = program.main(argv, init=init)
    models = list(models) if isinstance(models, tuple) else [models]
    return history, models[:len(built)]


def _as_float64(value: np.ndarray) -> np.ndarray:
    """A weight as float64 (a complex one: its real and imaginary parts along a last axis of two)."""
    if np.iscomplexobj(value):
        return np.stack([value.real, value.imag], axis=-1).astype(np.float64)
    return value.astype(np.float64)


def records(models: list[Any], whole: tuple[str, ...], to_numpy: Any,
            excused: dict[str, slice] | None = None) -> dict[str, np.ndarray]:
    """``final_record`` of each model's state, its names prefixed with the model's place
    (``0|fc1.weight``); the entries ``excused`` names (a name's last part: the elements a slice
    of the flattened weight picks) are left out first: weights whose true gradient is 0 and
    which an adaptive optimizer moves by round-off alone (attention's key bias)."""
    out = {}
    for i, model in enumerate(models):
        state = {k: _as_float64(to_numpy(v)) for k, v in model.state_dict().items()}
        for name, value in state.items():
            for part, where in (excused or {}).items():
                if name == part or name.endswith("." + part):
                    state[name] = np.delete(value.ravel(), where)
        out.update({f"{i}|{k}": v for k, v in final_record(state, whole).items()})
    return out


def check_run(name: str, argv: list[str], ref: Any, run: str, seed: int, float64: bool,
              keep: tuple[str, ...] = (), whole: tuple[str, ...] = (), built: Any = None,
              chaotic_after: int | None = None, chaotic_rtol: float = 0.0,
              excused: dict[str, slice] | None = None) -> None:
    """Run ``examples/ported/<name>.py`` here as ``ported_small_torch.write_fixture`` ran it under
    torch, and compare the history and the final weights with ``ref``'s ``run``: float64 to 1e-10,
    float32 to round-off.  ``built(model)``, if given, checks each model as the program built it.
    A history that amplifies round-off (torch's own run moves as far from a one-ulp change of
    its input) is compared so from entry ``chaotic_after`` on: to ``chaotic_rtol``."""
    import contextlib
    import io
    import warnings

    def load(model: Any, weights: dict[str, np.ndarray]) -> None:
        if built is not None:
            built(model)
        model.load_state_dict(weights, strict=False)

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tutorials' deprecated spellings
        history, models = run_program(load_program(name), argv, seed, keep, load)
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    want, cut = ref[f"{run}|history"], len(history) if chaotic_after is None else chaotic_after
    assert len(history) == len(want)
    np.testing.assert_allclose(history[:cut], want[:cut], rtol=rtol, atol=atol, err_msg=f"{run}: history")
    np.testing.assert_allclose(history[cut:], want[cut:], rtol=chaotic_rtol, atol=atol, err_msg=f"{run}: later")
    got = records(models, whole, lambda t: t.numpy(), excused)
    assert sorted(got) == sorted(k[len(run) + 7:] for k in ref.files if k.startswith(f"{run}|final|"))
    for key, value in got.items():
        np.testing.assert_allclose(value, ref[f"{run}|final|{key}"], rtol=rtol if float64 else 1e-4,
                                   atol=atol if float64 else 1e-5, err_msg=f"{run}: {key}")


def small_program_test(program: str, runs: dict[str, list[str]], seed: int, keep: tuple[str, ...] = (),
                       whole: tuple[str, ...] = (), excused: dict[str, slice] | None = None) -> Any:
    """A test, one case a run of ``runs`` (name: argv): :func:`check_run` of ``program`` against its
    fixture ``ported_<program>_reference.npz`` (float64 where the run passed ``--double``), as
    ``ported_small_torch.write_fixture`` wrote it with the same ``seed``, ``keep``, ``whole`` and
    ``excused``."""
    from pathlib import Path

    import pytest

    ref = np.load(Path(__file__).parent / f"ported_{program}_reference.npz")

    @pytest.mark.parametrize("run", list(runs))
    def test(run: str) -> None:
        argv = runs[run]
        check_run(program, argv, ref, run, seed=seed, float64="--double" in argv, keep=keep, whole=whole,
                  excused=excused)

    return test


def log_program_test(program: str, runs: dict[str, list[str]]) -> Any:
    """A test, one case a run of ``runs``: ``examples/ported/<program>.py`` run as is (no test hook) keeps
    in its module-level ``log`` the lines ``ported_small_torch.write_fixture_with_log`` stored
    (``<run>|log``) -- for programs whose prints do not depend on the starting weights."""
    import contextlib
    import io
    import warnings
    from pathlib import Path

    import pytest

    ref = np.load(Path(__file__).parent / f"ported_{program}_reference.npz")

    @pytest.mark.parametrize("run", list(runs))
    def test(run: str) -> None:
        import minigrad_ckpt as mg

        # The layers' starting weights come from the global generator: seeded, so that a print which reads
        # them (forward_ad's float32 difference quotient agrees with its jvp or not) does not depend on the
        # tests the worker ran before
        mg.manual_seed(0)
        module = load_program(program)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.main(runs[run])
        assert module.log == [str(line) for line in ref[f"{run}|log"]]

    return test

