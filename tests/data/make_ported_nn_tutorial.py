"""Regenerate ``tests/data/ported_nn_tutorial_reference.npz``: the PyTorch runs of
``examples/ported/nn_tutorial.py`` ("What is torch.nn really?"), read with the rename undone, in float32
and float64, as ``ported_record.record`` runs a program but without its recording of ``uniform_`` fills
(the layers' own initialization, which the starting weights replace): torch's ``randn`` (the hand-made
weights) and ``randperm`` (the shuffles) draws are recorded for the test to replay, each model starts
from ``ported_init.start_weights``; stored is the history (losses, accuracies, validation losses after
every fit), not the final weights (the history after each fit depends on all of them; the fixture stays
small).  ``tests/test_ported_nn_tutorial.py`` replays them.

    python tests/data/make_ported_nn_tutorial.py     # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
RUNS = {"nn_f64": ["--double"], "nn": []}


def main() -> None:
    sys.path.insert(0, str(HERE))
    import make_ported_reference as reference
    import numpy as np
    import torch
    from ported_init import start_weights

    def load_start_weights(run: str, when: str, model) -> None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in start_weights(model).items()})

    torch.set_num_threads(1)
    reference.ARRAYS.clear()
    store, reference.store_state = reference.store_state, load_start_weights
    try:
        for run, argv in RUNS.items():
            torch.manual_seed(0)
            reference.ARRAYS[f"{run}|argv"] = np.array(argv or [""])
            reference.run_as_torch(run, "nn_tutorial", argv)
    finally:
        reference.store_state = store
    out = HERE / "ported_nn_tutorial_reference.npz"
    np.savez_compressed(out, **reference.ARRAYS)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(reference.ARRAYS)} arrays)")


if __name__ == "__main__":
    main()
