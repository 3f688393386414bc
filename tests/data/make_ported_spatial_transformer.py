"""Regenerate ``tests/data/ported_spatial_transformer_reference.npz``: the PyTorch runs of
``examples/ported/spatial_transformer.py`` (the tutorial "Spatial Transformer Networks"), read
with the rename undone by ``make_ported_reference.as_torch_program`` and recorded as that file
records its programs, but small: both sides start from ``ported_init.reference_weights`` (seed 3)
except ``fc_loc.2``, which keeps the identity map the program builds; stored are ``main``'s history
(``<run>|history``) and each final weight as ``ported_init.weight_digest`` (``<run>|final|<name>``), the whole of
``fc_loc.2`` (the affine regressor, trained only through ``grid_sample``'s grid gradient) as it is.

    python tests/data/make_ported_spatial_transformer.py     # needs torch; the tests do not

One run per ``grid_sample`` configuration in ``RUNS`` (``tests/test_ported_spatial_transformer.py``
replays the same list): the tutorial's defaults in float32, and float64 runs of the other modes,
padding modes and ``align_corners``.  Dropout is 0 in training (two engines' masks differ).
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import make_ported_reference as reference  # noqa: E402
from ported_init import reference_weights, weight_digest  # noqa: E402

OUT = HERE / "ported_spatial_transformer_reference.npz"
RUNS = {  # run name: argv
    "stn": ["--dropout", "0"],
    "stn_f64": ["--dropout", "0", "--double"],
    "stn_border_corners_f64": ["--dropout", "0", "--double", "--padding-mode", "border", "--align-corners"],
    "stn_reflection_f64": ["--dropout", "0", "--double", "--padding-mode", "reflection"],
    "stn_nearest_reflection_corners_f64": ["--dropout", "0", "--double", "--mode", "nearest",
                                           "--padding-mode", "reflection", "--align-corners"],
    "stn_bicubic_border_f64": ["--dropout", "0", "--double", "--mode", "bicubic", "--padding-mode", "border"],
}



def start(model) -> None:
    """The fixed starting weights, all but the identity-initialised affine regressor's."""
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items() if not k.startswith("fc_loc.2.")}
    dtype = str(next(model.parameters()).dtype).rsplit(".", 1)[-1]
    weights = reference_weights(shapes, seed=3, dtype=dtype)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=False)


def record(run: str, argv: list[str]) -> None:
    program = reference.as_torch_program("spatial_transformer")
    with contextlib.redirect_stdout(io.StringIO()):
        history, model = program.main(argv, init=lambda key, model: start(model))
    ARRAYS[f"{run}|history"] = np.array(history, dtype=np.float64)
    for name, value in model.state_dict().items():
        value = value.detach().double().numpy()
        ARRAYS[f"{run}|final|{name}"] = value if name.startswith("fc_loc.2.") else weight_digest(value)


ARRAYS: dict[str, np.ndarray] = {}

if __name__ == "__main__":
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")  # the tutorial's size_average=False and default align_corners
    for run, argv in RUNS.items():
        torch.manual_seed(0)
        record(run, argv)
    np.savez_compressed(OUT, **ARRAYS)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(ARRAYS)} arrays)")
