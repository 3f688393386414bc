"""Regenerate ``tests/data/ported_parametrizations_reference.npz``: the PyTorch runs of
``examples/ported/parametrizations.py`` (the "Parametrizations" tutorial), read with the rename undone,
in float32 and float64 (``tests/test_ported_parametrizations.py`` replays ``RUNS``).  Each layer starts
from ``ported_small.start_weights`` (seed 19 and on, in the order the program builds them); stored are
the numbers the tutorial shows and the training losses (``<run>|history``), ``ported_small.records`` of
the final weights of the orthogonal, positive definite and convolution layers, and the lines the
tutorial prints (``<run>|log``).

    python tests/data/make_ported_parametrizations.py     # needs torch; the tests do not
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np

RUNS = {"param": [], "param_f64": ["--double"]}
OUT = Path(__file__).with_name("ported_parametrizations_reference.npz")


def main() -> None:
    import make_ported_reference as reference
    import torch
    from ported_small_torch import write_fixture

    write_fixture("parametrizations", RUNS, OUT, seed=19)
    arrays = dict(np.load(OUT))
    for run, argv in RUNS.items():
        torch.manual_seed(0)
        module = reference.as_torch_program("parametrizations")
        with contextlib.redirect_stdout(io.StringIO()):
            module.main(argv)
        arrays[f"{run}|log"] = np.array(module.log)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()
