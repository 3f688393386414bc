"""Record torch's runs of one ported program into its own fixture (``ported_<prog>_reference.npz``),
with ``make_ported_reference.py``'s ``run_as_torch``: the program read from ``examples/ported/`` with the
rename undone, its draws, history and final weights stored under ``<run>|...`` keys.  The starting
weights are not stored: both sides load ``ported_init.reference_weights`` (seed 0) into each freshly
built model, which keeps the fixture small.  Needs torch; the tests read it through ``ported_replay.py``."""

from __future__ import annotations

from pathlib import Path

import make_ported_reference as reference
import numpy as np
import torch
from ported_init import start_weights
from torch.distributions import multivariate_normal


def _load_start_weights(run: str, when: str, model) -> None:
    """Stands in for ``reference.store_state``: at the ``init`` hook, the start weights are loaded first
    (``run_as_torch`` reads which models to store at the end off the ``init`` keys; they are dropped)."""
    if when.startswith("init|"):
        model.load_state_dict({k: torch.from_numpy(v) for k, v in start_weights(model).items()})
        # From here on (the models built), Tensor.uniform_'s fills are recorded too: as torch.uniform_
        torch.Tensor.uniform_ = lambda self, *args, **kwargs: torch.uniform_(self, *args, **kwargs)
    store(run, when, model)


def _uniform_fill(tensor, *args, **kwargs):
    """``Tensor.uniform_`` as a function of ``torch``, where ``run_as_torch`` records what it gives back."""
    return uniform_method(tensor, *args, **kwargs)


def _recorded_standard_normal(shape, dtype, device):
    """``MultivariateNormal.rsample``'s standard normals, drawn by ``torch.randn`` so that they are recorded
    (torch draws them with ``Tensor.normal_``, which is not; ``mg``'s distribution calls its ``randn``)."""
    return torch.randn(shape, dtype=dtype, device=device)


store = reference.store_state
recorded_draws = reference.RECORDED_DRAWS
uniform_method = torch.Tensor.uniform_


def record(program: str, runs: dict[str, list[str]], out: Path, final_weights: tuple[str, ...] = ()) -> None:
    """Run each of ``runs`` (name: argv) as torch; of the final weights, only those of the runs
    ``final_weights`` names are kept (the others' histories alone keep the fixture small)."""
    torch.set_num_threads(1)
    reference.ARRAYS.clear()
    reference.store_state = _load_start_weights
    reference.RECORDED_DRAWS = (*recorded_draws, "rand", "rand_like", "uniform_")  # rand: Uniform.rsample's
    standard_normal = multivariate_normal._standard_normal
    multivariate_normal._standard_normal = _recorded_standard_normal
    torch.uniform_ = _uniform_fill
    try:
        for run, argv in runs.items():
            torch.manual_seed(0)
            reference.ARRAYS[f"{run}|argv"] = np.array(argv or [""])  # the test runs the same command line
            try:
                reference.run_as_torch(run, program, argv)
            finally:
                torch.Tensor.uniform_ = uniform_method
    finally:
        reference.store_state = store
        reference.RECORDED_DRAWS = recorded_draws
        multivariate_normal._standard_normal = standard_normal
        del torch.uniform_
    for key in [k for k in reference.ARRAYS if k.split("|")[1] == "init"
                or (k.split("|")[1] == "final" and k.split("|")[0] not in final_weights)]:
        del reference.ARRAYS[key]
    np.savez_compressed(out, **reference.ARRAYS)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(reference.ARRAYS)} arrays)")


def record_draws(program: str, runs: dict[str, list[str]], out: Path) -> None:
    """:func:`record` without its recording of ``uniform_`` fills (a program whose later models' own
    initialization the starting weights replace anyway) and without final weights: each run's draws
    (``randn``, ``randperm``, ...) and history, every model from ``ported_init.start_weights``."""

    def load_start_weights(run: str, when: str, model) -> None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in start_weights(model).items()})

    torch.set_num_threads(1)
    reference.ARRAYS.clear()
    reference.store_state = load_start_weights
    try:
        for run, argv in runs.items():
            torch.manual_seed(0)
            reference.ARRAYS[f"{run}|argv"] = np.array(argv or [""])
            reference.run_as_torch(run, program, argv)
    finally:
        reference.store_state = store
    np.savez_compressed(out, **reference.ARRAYS)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(reference.ARRAYS)} arrays)")

