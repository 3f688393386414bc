"""The tutorial "Spatial Transformer Networks", ported (``examples/ported/spatial_transformer.py``),
gives PyTorch's numbers: ``tests/data/make_ported_spatial_transformer.py`` ran the same source with
the rename undone under torch 2.13, once per ``grid_sample`` configuration.

Both sides start from ``ported_small.start_weights`` except the affine regressor's last layer,
which keeps the identity map the program builds (``weight.data.zero_()``,
``bias.data.copy_(mg.tensor([1, 0, 0, 0, 1, 0], dtype=mg.float))``); that layer learns only through
``grid_sample``'s gradient in its grid, and the history ends with the input images' gradient,
which reaches them through ``grid_sample``'s input.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_spatial_transformer_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {  # run name: (argv, float64?) -- tests/data/make_ported_spatial_transformer.py's list
    "stn": (["--dropout", "0"], False),
    "stn_f64": (["--dropout", "0", "--double"], True),
    "stn_border_corners_f64": (["--dropout", "0", "--double", "--padding-mode", "border", "--align-corners"], True),
    "stn_reflection_f64": (["--dropout", "0", "--double", "--padding-mode", "reflection"], True),
    "stn_nearest_reflection_corners_f64": (["--dropout", "0", "--double", "--mode", "nearest",
                                            "--padding-mode", "reflection", "--align-corners"], True),
    "stn_bicubic_border_f64": (["--dropout", "0", "--double", "--mode", "bicubic", "--padding-mode", "border"], True),
}


def _identity_map(model):
    state = model.state_dict()
    assert not state["fc_loc.2.weight"].numpy().any()  # built by the program's .data writes
    np.testing.assert_array_equal(state["fc_loc.2.bias"].numpy(), [1, 0, 0, 0, 1, 0])


@pytest.mark.parametrize("run", list(RUNS))
def test_spatial_transformer_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("spatial_transformer", argv, REF, run, seed=3, float64=float64, keep=("fc_loc.2.",),
              whole=("fc_loc.2.",), built=_identity_map)
