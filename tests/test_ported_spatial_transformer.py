"""The tutorial "Spatial Transformer Networks", ported (``examples/ported/spatial_transformer.py``),
gives PyTorch's numbers: ``tests/data/make_ported_spatial_transformer.py`` ran the same source with
the rename undone under torch 2.13, once per ``grid_sample`` configuration.

Both sides start from ``ported_init.reference_weights`` except the affine regressor's last layer,
which keeps the identity map the program builds (``weight.data.zero_()``,
``bias.data.copy_(mg.tensor([1, 0, 0, 0, 1, 0], dtype=mg.float))``); that layer learns only through
``grid_sample``'s gradient in its grid, and the history ends with the input images' gradient,
which reaches them through ``grid_sample``'s input.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
PORTED = HERE.parent / "examples" / "ported"
REF = np.load(HERE / "data" / "ported_spatial_transformer_reference.npz")
sys.path.insert(0, str(PORTED))
sys.path.insert(0, str(HERE / "data"))
from ported_init import reference_weights, weight_digest  # noqa: E402

RUNS = {  # run name: (argv, float64?) -- tests/data/make_ported_spatial_transformer.py's list
    "stn": (["--dropout", "0"], False),
    "stn_f64": (["--dropout", "0", "--double"], True),
    "stn_border_corners_f64": (["--dropout", "0", "--double", "--padding-mode", "border", "--align-corners"], True),
    "stn_reflection_f64": (["--dropout", "0", "--double", "--padding-mode", "reflection"], True),
    "stn_nearest_reflection_corners_f64": (["--dropout", "0", "--double", "--mode", "nearest",
                                            "--padding-mode", "reflection", "--align-corners"], True),
    "stn_bicubic_border_f64": (["--dropout", "0", "--double", "--mode", "bicubic", "--padding-mode", "border"], True),
}


def _program():
    spec = importlib.util.spec_from_file_location("ported_spatial_transformer", PORTED / "spatial_transformer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _start(key, model):
    state = model.state_dict()
    assert not state["fc_loc.2.weight"].numpy().any()  # the program's identity map, built by .data writes
    np.testing.assert_array_equal(state["fc_loc.2.bias"].numpy(), [1, 0, 0, 0, 1, 0])
    shapes = {k: tuple(v.shape) for k, v in state.items() if not k.startswith("fc_loc.2.")}
    dtype = str(state["fc_loc.2.bias"].dtype).rsplit(".", 1)[-1]
    model.load_state_dict(reference_weights(shapes, seed=3, dtype=dtype), strict=False)


@pytest.mark.parametrize("run", list(RUNS))
def test_spatial_transformer_matches_pytorch(run):
    argv, float64 = RUNS[run]
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tutorial's size_average=False
        history, model = _program().main(argv, init=_start)
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, REF[f"{run}|history"], rtol=rtol, atol=atol)
    for name, value in model.state_dict().items():
        got = value.numpy().astype(np.float64)
        got = got if name.startswith("fc_loc.2.") else weight_digest(got)
        np.testing.assert_allclose(got, REF[f"{run}|final|{name}"], rtol=rtol if float64 else 1e-4,
                                   atol=atol if float64 else 1e-5, err_msg=f"{run}: {name}")
