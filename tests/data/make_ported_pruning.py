"""Regenerate ``tests/data/ported_pruning_reference.npz``: the PyTorch runs of
``examples/ported/pruning.py`` (the "Pruning Tutorial"), read with the rename undone, in float32 and
float64 (``tests/test_ported_pruning.py`` replays ``RUNS``).  Each LeNet starts from
``ported_small.start_weights`` (seed 23 and on); stored are the numbers the tutorial shows and the
training losses (``<run>|history``), ``ported_small.records`` of the final weights, the lines the
tutorial prints (``<run>|log``), and the draws of ``torch.rand_like`` that ``random_unstructured``
made (``<run>|rand_like|<i>``), which the test gives back to the engine's.

    python tests/data/make_ported_pruning.py     # needs torch; the tests do not
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np

RUNS = {"prune": [], "prune_f64": ["--double"]}
OUT = Path(__file__).with_name("ported_pruning_reference.npz")


def main() -> None:
    import make_ported_reference as reference
    import torch
    from ported_small import records, run_program

    torch.set_num_threads(1)
    arrays: dict[str, np.ndarray] = {}
    original = torch.rand_like

    def load(model, weights):
        model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)

    for run, argv in RUNS.items():
        draws = []

        def rand_like(*args, draws=draws, **kwargs):
            out = original(*args, **kwargs)
            draws.append(out.detach().numpy().copy())
            return out

        torch.manual_seed(0)
        module = reference.as_torch_program("pruning")
        torch.rand_like = rand_like
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                history, models = run_program(module, argv, 23, (), load)
        finally:
            torch.rand_like = original
        arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
        for name, value in records(models, (), lambda t: t.detach().numpy()).items():
            arrays[f"{run}|final|{name}"] = value
        arrays[f"{run}|log"] = np.array(module.log)
        for i, draw in enumerate(draws):
            arrays[f"{run}|rand_like|{i}"] = draw
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()
