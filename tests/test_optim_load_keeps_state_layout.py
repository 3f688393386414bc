"""A loaded optimizer state keeps the memory layout it was saved in, as PyTorch's ``load_state_dict``
(``value.to(dtype, device)`` keeps strides) does: a channels_last convolution's moments resume
channels_last, as in the run that never stopped -- whether the state comes straight from
``state_dict()``, through ``mg.save``/``mg.load``, or from a snapshot."""

from __future__ import annotations

import io

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot

OPTIMIZERS = {"SGD": dict(lr=0.1, momentum=0.9), "Adam": dict(lr=0.01, amsgrad=True),
              "RMSprop": dict(lr=0.01, centered=True)}


def _conv(device, dtype):
    mg.manual_seed(0)
    return nn.Conv2d(3, 4, 3, device=device, dtype=dtype).to(memory_format=mg.channels_last)


def _trained(name, device, dtype):
    conv = _conv(device, dtype)
    opt = getattr(optim, name)(conv.parameters(), **OPTIMIZERS[name])
    x = mg.randn(2, 3, 5, 5, device=device, dtype=dtype).to(memory_format=mg.channels_last)
    conv(x).square().sum().backward()
    opt.step()
    return conv, opt


def _moment_strides(opt, weight):
    return {k: v.stride() for k, v in opt.state[weight].items() if isinstance(v, mg.Tensor) and v.ndim == 4}


def _via_save(sd):
    buf = io.BytesIO()
    mg.save(sd, buf)
    buf.seek(0)
    return mg.load(buf)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("route", ["state_dict", "mg.save"])
def test_a_loaded_state_keeps_the_saved_layout(name, dtype, device, route):
    from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

    conv, opt = _trained(name, device, dtype)
    want = _moment_strides(opt, conv.weight)
    assert want and all(s == conv.weight.stride() for s in want.values())  # the run's: channels_last
    sd = opt.state_dict() if route == "state_dict" else _via_save(opt.state_dict())
    conv2 = _conv(device, dtype)
    opt2 = getattr(optim, name)(conv2.parameters(), **OPTIMIZERS[name])
    opt2.load_state_dict(sd)
    assert _moment_strides(opt2, conv2.weight) == want


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_snapshot_resume_keeps_the_moments_layout(tmp_path, name):
    conv, opt = _trained(name, "cpu", mg.float32)
    want = _moment_strides(opt, conv.weight)
    Snapshot.from_executor(mg.Executor(conv, opt)).save(tmp_path / "s.mgsnap")
    conv2 = _conv("cpu", mg.float32)
    opt2 = getattr(optim, name)(conv2.parameters(), **OPTIMIZERS[name])
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(conv2, opt2))
    assert _moment_strides(opt2, conv2.weight) == want


def test_a_row_major_state_loads_row_major_and_a_copy():
    conv = nn.Linear(3, 4)
    opt = optim.Adam(conv.parameters(), lr=0.1)
    conv(mg.randn(2, 3)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    opt2 = optim.Adam(nn.Linear(3, 4).parameters(), lr=0.1)
    opt2.load_state_dict(sd)
    loaded = opt2.state[opt2.param_groups[0]["params"][0]]["exp_avg"]
    assert loaded.is_contiguous() and loaded is not sd["state"][0]["exp_avg"]
