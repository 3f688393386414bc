"""The torch side of ``ported_small``: run a program of ``examples/ported/`` with the rename
undone (``make_ported_reference.as_torch_program``) once per configuration and write its small
fixture: ``<run>|history`` and ``<run>|final|<model>|<name>`` (``ported_small.records``)."""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
import make_ported_reference as reference  # noqa: E402
from ported_small import records, run_program  # noqa: E402


def _load(model: torch.nn.Module, weights: dict[str, np.ndarray]) -> None:
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)


def write_fixture(program: str, runs: dict[str, list[str]], out: Path, seed: int,
                  keep: tuple[str, ...] = (), whole: tuple[str, ...] = (),
                  excused: dict[str, slice] | None = None) -> None:
    torch.set_num_threads(1)
    arrays: dict[str, np.ndarray] = {}
    for run, argv in runs.items():
        torch.manual_seed(0)
        module = reference.as_torch_program(program)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tutorials' deprecated spellings
            history, models = run_program(module, argv, seed, keep, _load)
        arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
        for name, value in records(models, whole, lambda t: t.detach().numpy(), excused).items():
            arrays[f"{run}|final|{name}"] = value
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(arrays)} arrays)")


def write_fixture_with_log(program: str, runs: dict[str, list[str]], out: Path, seed: int,
                           excused: dict[str, slice] | None = None) -> None:
    """``write_fixture``, and beside each run the lines a program that keeps its prints in a module-level
    ``log`` list printed (``<run>|log``; the ported tutorials whose prints the tests compare)."""
    write_fixture(program, runs, out, seed=seed, excused=excused)
    arrays = dict(np.load(out))
    for run, argv in runs.items():
        torch.manual_seed(0)
        module = reference.as_torch_program(program)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.main(argv)
        arrays[f"{run}|log"] = np.array(module.log)
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(arrays)} arrays)")
