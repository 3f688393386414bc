"""Regenerate ``tests/data/ported_neural_ode_reference.npz``:
``examples/ported/neural_ode.py`` run as a torch program (its source with the rename
undone, ``make_ported_reference.as_torch_program``).

    python tests/data/make_ported_neural_ode.py        # needs torch; the tests do not

The program draws nothing from torch's generator (its batches and the flow's data and Rademacher
vector come from NumPy).  Stored per run: the starting weights of the two models
(``ode_f64|init|<func or diffeq>|<name>``; the float32 run starts from them, rounded), ``main``'s
history (losses and gradient norms of the RK4 fit, the flow's losses, the three divergences) and
the final weights (``<run>|final|<key>|<name>``).  The ``--checkpoint`` run is not stored: its
numbers are the plain run's, to the bit.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from make_ported_reference import as_torch_program  # noqa: E402

OUT = HERE / "ported_neural_ode_reference.npz"
RUNS = {"ode_f64": ["--double"], "ode_f32": []}


def record(run: str, argv: list[str], arrays: dict[str, np.ndarray]) -> None:
    module = as_torch_program("neural_ode")
    def init(key, model):
        if run != "ode_f64":  # the float32 run starts from the float64 run's weights, rounded
            model.load_state_dict({k.split("|")[-1]: torch.from_numpy(v) for k, v in arrays.items()
                                   if k.startswith(f"ode_f64|init|{key}|")})
            return
        for name, value in model.state_dict().items():
            arrays[f"{run}|init|{key}|{name}"] = value.detach().numpy().copy()

    with contextlib.redirect_stdout(io.StringIO()):
        history, models = module.main(argv, init=init)
    arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
    for key, model in zip(("func", "diffeq"), models):
        for name, value in model.state_dict().items():
            arrays[f"{run}|final|{key}|{name}"] = value.detach().numpy().copy()


if __name__ == "__main__":
    torch.set_num_threads(1)
    arrays: dict[str, np.ndarray] = {}
    for run, argv in RUNS.items():
        torch.manual_seed(0)
        record(run, argv, arrays)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")
