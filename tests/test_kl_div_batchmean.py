"""``F.kl_div(..., reduction="batchmean")`` of an empty batch is NaN (``0 / 0``), as PyTorch's ``sum / size(0)``.

``F.kl_div(mg.zeros(0, 3), mg.zeros(0, 3), reduction="batchmean")`` raised ``ZeroDivisionError``
(the Python number ``1.0 / 0``); torch 2.13 answers ``nan`` with an empty gradient.

Expected values: torch 2.13 (``tests/data/make_torch_kl_div_batchmean.py`` writes
``tests/data/torch_kl_div_batchmean.json``; NaN is stored as null).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = json.loads(Path(__file__).with_name("data").joinpath("torch_kl_div_batchmean.json").read_text())
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


@pytest.mark.parametrize("name", list(TORCH))
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("device, dtype", SEAMS)
def test_batchmean_is_pytorchs(name, log_target, device, dtype):
    case = TORCH[name]
    want = case[f"{dtype}/log_target={log_target}"]
    x = mg.tensor(np.array(case["input"], dtype=np.float64).reshape(want["grad_shape"]), dtype=getattr(mg, dtype),
                  device=device, requires_grad=True)
    t = mg.tensor(np.array(case["target"], dtype=np.float64).reshape(want["grad_shape"]), dtype=getattr(mg, dtype),
                  device=device)
    for loss in (F.kl_div(x, t.log() if log_target else t, reduction="batchmean", log_target=log_target),
                 mg.nn.KLDivLoss(reduction="batchmean", log_target=log_target)(x, t.log() if log_target else t)):
        got = loss.item()
        assert loss.dtype == getattr(mg, dtype)
        if want["value"] is None:
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want["value"], rel=1e-6 if dtype == "float32" else 1e-13)
        x.grad = None
        loss.backward()
        assert list(x.grad.shape) == want["grad_shape"]
        np.testing.assert_allclose(x.grad.cpu().numpy().ravel(), np.ravel(want["grad"]),
                                   rtol=1e-6 if dtype == "float32" else 1e-13)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_forward_mode_of_an_empty_batch(device):
    t = mg.zeros(0, 3, dtype=mg.float64, device=device)
    x, dx = (mg.zeros(0, 3, dtype=mg.float64, device=device), mg.ones(0, 3, dtype=mg.float64, device=device))
    value, tangent = mg.func.jvp(lambda v: F.kl_div(v, t, reduction="batchmean"), (x,), (dx,))
    # the value is PyTorch's NaN; the tangent, a zero tangent through a division by 0, is 0 by the
    # engine's rule for singular points (docs/ops.md, "Conventions worth knowing"; torch.func: NaN)
    assert math.isnan(value.item()) and tangent.item() == 0.0
