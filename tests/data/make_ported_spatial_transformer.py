"""Regenerate ``tests/data/ported_spatial_transformer_reference.npz``: the PyTorch runs of
``examples/ported/spatial_transformer.py`` (the tutorial "Spatial Transformer Networks"), read
with the rename undone, one per ``grid_sample`` configuration in ``RUNS``
(``tests/test_ported_spatial_transformer.py`` replays the same list): the tutorial's defaults in
float32, and float64 runs of the other modes, padding modes and ``align_corners``.  Dropout is 0
(two engines' masks differ).

    python tests/data/make_ported_spatial_transformer.py     # needs torch; the tests do not

Both sides start from ``ported_small.start_weights`` (seed 3) except ``fc_loc.2``, which keeps the
identity map the program builds; stored are the history and the final weights
(``ported_small.records``: ``fc_loc.2``, trained only through ``grid_sample``'s grid gradient, whole).
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

RUNS = {  # run name: argv
    "stn": ["--dropout", "0"],
    "stn_f64": ["--dropout", "0", "--double"],
    "stn_border_corners_f64": ["--dropout", "0", "--double", "--padding-mode", "border", "--align-corners"],
    "stn_reflection_f64": ["--dropout", "0", "--double", "--padding-mode", "reflection"],
    "stn_nearest_reflection_corners_f64": ["--dropout", "0", "--double", "--mode", "nearest",
                                           "--padding-mode", "reflection", "--align-corners"],
    "stn_bicubic_border_f64": ["--dropout", "0", "--double", "--mode", "bicubic", "--padding-mode", "border"],
}

if __name__ == "__main__":
    write_fixture("spatial_transformer", RUNS, Path(__file__).with_name("ported_spatial_transformer_reference.npz"),
                  seed=3, keep=("fc_loc.2.",), whole=("fc_loc.2.",))
