"""Regenerate ``tests/data/ported_saved_tensors_hooks_reference.npz``: the PyTorch runs of
``examples/ported/saved_tensors_hooks.py`` (the "Hooks for autograd saved tensors" tutorial), read
with the rename undone, in float32 and float64 (``tests/test_ported_saved_tensors_hooks.py`` replays
``RUNS``).  The first model starts from ``ported_small.start_weights`` (seed 17), the other three from
its starting weights; stored are the losses of the four ways of keeping the saved values,
``ported_small.records`` of the final weights, and the lines the tutorial prints (``<run>|log``).

    python tests/data/make_ported_saved_tensors_hooks.py     # needs torch; the tests do not
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np

RUNS = {"hooks": [], "hooks_f64": ["--double"]}
OUT = Path(__file__).with_name("ported_saved_tensors_hooks_reference.npz")


def main() -> None:
    import make_ported_reference as reference
    import torch
    from ported_small_torch import write_fixture

    write_fixture("saved_tensors_hooks", RUNS, OUT, seed=17)
    arrays = dict(np.load(OUT))
    for run, argv in RUNS.items():
        torch.manual_seed(0)
        module = reference.as_torch_program("saved_tensors_hooks")
        with contextlib.redirect_stdout(io.StringIO()):
            module.main(argv)
        arrays[f"{run}|log"] = np.array(module.log)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()
