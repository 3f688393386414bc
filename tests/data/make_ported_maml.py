"""Regenerate ``tests/data/ported_maml_reference.npz``:
``examples/ported/maml.py`` run as a torch program (its source with the rename
undone, ``make_ported_reference.as_torch_program``).

    python tests/data/make_ported_maml.py        # needs torch; the tests do not

The program draws nothing from torch's generator (its tasks come from NumPy).  Runs: the
fast-weights step (``autograd.grad(create_graph=True)``) and the ``torch.func`` one
(``--functional``), each in float64 and float32.  Stored per run: the starting weights
(``maml_f64|init|net|<name>``; every run starts from them, float32 rounded), ``main``'s history
(the meta-loss and the meta-gradient's norm per weight, each iteration) and the final weights
(``<run>|final|net|<name>``).
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

OUT = HERE / "ported_maml_reference.npz"
RUNS = {"maml_f64": ["--double"], "maml_functional_f64": ["--double", "--functional"], "maml_f32": [],
        "maml_functional_f32": ["--functional"]}


def record(run: str, argv: list[str], arrays: dict[str, np.ndarray]) -> None:
    module = as_torch_program("maml")
    def init(key, model):
        if run != "maml_f64":  # every other run starts from the first one's weights (float32: rounded)
            model.load_state_dict({k.split("|")[-1]: torch.from_numpy(v) for k, v in arrays.items()
                                   if k.startswith(f"maml_f64|init|{key}|")})
            return
        for name, value in model.state_dict().items():
            arrays[f"{run}|init|{key}|{name}"] = value.detach().numpy().copy()

    with contextlib.redirect_stdout(io.StringIO()):
        history, model = module.main(argv, init=init)
    arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
    for name, value in model.state_dict().items():
        arrays[f"{run}|final|net|{name}"] = value.detach().numpy().copy()


if __name__ == "__main__":
    torch.set_num_threads(1)
    arrays: dict[str, np.ndarray] = {}
    for run, argv in RUNS.items():
        torch.manual_seed(0)
        record(run, argv, arrays)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")
