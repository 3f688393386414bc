"""``mg.amp.GradScaler`` / ``mg.autocast`` / ``mg.cuda.amp``: a ported mixed-precision loop
(``scaler = torch.cuda.amp.GradScaler()``, ``with torch.autocast(...)``) was an AttributeError.
The scaler is PyTorch's dynamic loss scaling; expected numbers: the loop below on torch 2.13 with
``torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)`` (float64, step 2's loss inf)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.cuda.amp import GradScaler as CudaGradScaler


def _problem():
    lin = mg.nn.Linear(3, 1).double()
    with mg.no_grad():
        lin.weight.copy_(mg.tensor([[0.5, -1.0, 2.0]], dtype=mg.float64))
        lin.bias.fill_(0.1)
    x = mg.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, 1.0], [-1.0, 1.0, 0.0]], dtype=mg.float64)
    return lin, x


def test_grad_scaler_skips_the_inf_step_backs_off_and_grows_as_pytorchs():
    lin, x = _problem()
    opt = mg.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    scaler = mg.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    scales, returned = [], []
    for i in range(6):
        opt.zero_grad()
        with mg.autocast(device_type="cpu", enabled=False):
            loss = lin(x).pow(2).mean() * (float("inf") if i == 2 else 1.0)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        mg.nn.utils.clip_grad_norm_(lin.parameters(), 1.0)
        returned.append(scaler.step(opt))
        scaler.update()
        scales.append(scaler.get_scale())
    np.testing.assert_allclose(lin.weight.numpy(), [[0.3185697192001488, -0.9351288767939465, 1.1697269878370569]],
                               rtol=1e-12)
    np.testing.assert_allclose(lin.bias.numpy(), [0.9951441353689968], rtol=1e-12)
    assert scales == [4.0, 8.0, 4.0, 4.0, 8.0, 8.0]
    assert scaler.state_dict() == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                   "growth_interval": 2, "_growth_tracker": 1}


def test_stage_errors_are_pytorchs():
    lin, x = _problem()
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    scaler = mg.amp.GradScaler("cpu")
    scaler.scale(lin(x).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks"):
        scaler.update()


def test_without_a_gpu_the_cuda_scaler_and_autocast_pass_through():
    if mg.cuda.is_available():
        pytest.skip("a GPU is visible: the cuda scaler scales")
    lin, x = _problem()
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        scaler = CudaGradScaler()
    loss = lin(x).sum()
    assert not scaler.is_enabled() and scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    with mg.cuda.amp.autocast():
        y = lin(x)
    assert y.dtype == mg.float64
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.state_dict() == {}


def test_enabled_autocast_says_once_that_precision_is_not_lowered():
    mg.amp.autocast._warned = False
    with pytest.warns(UserWarning, match="inputs' dtype"):
        with mg.autocast(device_type="cpu", dtype=mg.float16):
            out = mg.ones(2) * 2

    @mg.autocast("cpu")
    def f(t):
        return t + 1

    assert out.dtype == mg.float32 and f(mg.ones(1)).dtype == mg.float32


def test_autocast_refuses_what_is_no_autocast_device_type():
    """``mg.autocast("gpu")`` was silently disabled; PyTorch's is an error (its message names the types)."""
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        mg.autocast("gpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mg.autocast(3)
    assert not mg.autocast("cpu", enabled=False).enabled
