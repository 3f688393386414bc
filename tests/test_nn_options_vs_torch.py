"""``nn.functional`` options against PyTorch's recorded answers (``tests/data/torch_nn_options.npz``,
made by ``tests/data/make_torch_nn_options.py`` from the cases in ``tests/data/nn_option_cases.py``):
every output with its dtype and shape, the input's gradient and the first output's forward-mode
derivative (``mg.func.jvp``), in float64 and float32."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

sys.path.insert(0, str(Path(__file__).parent / "data"))
from nn_option_cases import CASES, JVP_NOT_TORCH  # noqa: E402

REF = np.load(Path(__file__).parent / "data" / "torch_nn_options.npz")
TOL = {"float64": 1e-10, "float32": 1e-5}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_and_gradient_match_torch(name, dtype):
    x = mg.tensor(REF[f"{name}.x"].astype(dtype), requires_grad=True)
    ys = CASES[name][1](F, x)
    ys = ys if isinstance(ys, tuple) else (ys,)
    for i, y in enumerate(ys):
        want = REF[f"{name}.{dtype}.y{i}"]
        assert y.shape == want.shape and y.numpy().dtype == want.dtype
        np.testing.assert_allclose(y.numpy(), want, rtol=TOL[dtype], atol=TOL[dtype])
    (g,) = mg.autograd.grad(ys[0], [x], mg.tensor(REF[f"{name}.{dtype}.up"]))
    np.testing.assert_allclose(g.numpy(), REF[f"{name}.{dtype}.gx"], rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(set(CASES) - JVP_NOT_TORCH))
def test_forward_mode_matches_torch(name, dtype):
    def first(v):
        ys = CASES[name][1](F, v)
        return ys[0] if isinstance(ys, tuple) else ys

    x = mg.tensor(REF[f"{name}.x"].astype(dtype))
    _, tangent_out = mg.func.jvp(first, (x,), (mg.tensor(REF[f"{name}.{dtype}.tangent"]),))
    np.testing.assert_allclose(tangent_out.numpy(), REF[f"{name}.{dtype}.jvp"], rtol=TOL[dtype], atol=TOL[dtype])
