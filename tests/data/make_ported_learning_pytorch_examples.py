"""Regenerate ``tests/data/ported_learning_pytorch_examples_reference.npz``: the PyTorch runs of
``examples/ported/learning_pytorch_examples.py`` ("Learning PyTorch with Examples"), read with the rename undone,
in float32 and float64, as ``make_ported_nn_tutorial.py`` records them: torch's ``randn`` draws (the weights of
the polynomials and modules) for the test to replay, the two ``nn.Linear`` models from
``ported_init.start_weights``; stored is the history (the printed losses and the fitted coefficients).
``tests/test_ported_learning_pytorch_examples.py`` replays them.

    python tests/data/make_ported_learning_pytorch_examples.py     # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
RUNS = {"examples_f64": ["--double"], "examples": []}


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
            reference.run_as_torch(run, "learning_pytorch_examples", argv)
    finally:
        reference.store_state = store
    out = HERE / "ported_learning_pytorch_examples_reference.npz"
    np.savez_compressed(out, **reference.ARRAYS)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(reference.ARRAYS)} arrays)")


if __name__ == "__main__":
    main()
