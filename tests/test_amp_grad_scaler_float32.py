"""``GradScaler``'s scale is a float32, as torch 2.13's scale tensor: ``init_scale``, each growth
and back-off (``float32(scale * factor)``), ``update(new_scale)`` and a loaded scale round to
float32, a growth float32 cannot hold keeps the scale, and ``unscale_`` multiplies by
``float32(1 / scale)``.  The scale was a Python float (a double): with factors that are not powers
of two (``backoff_factor=0.3``) the scale, the scaled loss and so every step drifted from torch's
(``1474.04739`` where torch has ``1474.04736328125``), and at the float32 limit it grew to
``FLT_MAX`` where torch keeps ``2**127``.  torch's numbers: ``tests/data/torch_grad_scaler_float32.json``
(``tests/data/make_torch_grad_scaler_float32.py``); torch is not imported.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim

TORCH = json.loads((Path(__file__).parent / "data" / "torch_grad_scaler_float32.json").read_text())
CASES = TORCH["cases"]


def _hex(v):
    return float(v).hex()


def _loop(case, w, opt, scaler, steps, out):
    for i in steps:
        opt.zero_grad()
        loss = (w * w * 0.37).sum() * (float("inf") if i in case["args"][5] else 1.0)
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.step(opt)
        scaler.update()
        out["scales"].append(_hex(scaler.get_scale()))
        out["scaled"].append(_hex(scaled.item()))
        out["params"].append([_hex(v) for v in w.detach().tolist()])


def _build(case):
    init, growth, backoff, interval, dtype, _ = case["args"]
    w = mg.tensor(TORCH["w0"], dtype=getattr(mg, dtype), requires_grad=True)
    opt = optim.SGD([w], lr=0.01)
    scaler = mg.amp.GradScaler("cpu", init_scale=init, growth_factor=growth, backoff_factor=backoff,
                               growth_interval=interval)
    return w, opt, scaler


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_scale_steps_and_scaled_losses_are_torchs_bit_for_bit(name):
    case = CASES[name]
    w, opt, scaler = _build(case)
    assert _hex(scaler.get_scale()) == case["before"]
    assert _hex(scaler.state_dict()["scale"]) == case["state_before"]
    out = {"scales": [], "scaled": [], "params": []}
    _loop(case, w, opt, scaler, range(TORCH["steps"]), out)
    assert out == {k: case[k] for k in out}
    scaler.update(new_scale=123.456)
    assert _hex(scaler.get_scale()) == case["new_scale"]
    fresh = mg.amp.GradScaler("cpu")
    fresh.load_state_dict({**scaler.state_dict(), "scale": 777.77})
    assert _hex(fresh.get_scale()) == case["loaded_before_scale"]
    fresh.scale(mg.ones(()))
    assert _hex(fresh.get_scale()) == case["loaded_after_scale"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_scaler_resumed_mid_run_through_mg_save_goes_on_as_torchs(name):
    case = CASES[name]
    w, opt, scaler = _build(case)
    out = {"scales": [], "scaled": [], "params": []}
    _loop(case, w, opt, scaler, range(3), out)
    buf = io.BytesIO()
    mg.save({"w": w.detach(), "opt": opt.state_dict(), "scaler": scaler.state_dict()}, buf)
    buf.seek(0)
    ck = mg.load(buf)
    w, opt, scaler = _build(case)
    with mg.no_grad():
        w.copy_(ck["w"])
    opt.load_state_dict(ck["opt"])
    scaler.load_state_dict(ck["scaler"])
    _loop(case, w, opt, scaler, range(3, TORCH["steps"]), out)
    assert out == {k: case[k] for k in out}


def test_a_scale_float32_cannot_hold_is_torchs_error():
    refusals = TORCH["beyond_float32"]
    assert refusals["init_scale"][0] == refusals["new_scale"][0] == "RuntimeError"
    with pytest.raises(RuntimeError, match=refusals["init_scale"][1]):
        mg.amp.GradScaler("cpu", init_scale=2.0 ** 140).scale(mg.ones(()))
    scaler = mg.amp.GradScaler("cpu")
    scaler.scale(mg.ones(()))
    with pytest.raises(RuntimeError, match=refusals["new_scale"][1]):
        scaler.update(new_scale=2.0 ** 140)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

    case = CASES["odd_factors_float32"]
    w, opt, scaler = _build(case)
    w = w.detach().to(device).requires_grad_(True)
    opt = optim.SGD([w], lr=0.01)
    out = {"scales": [], "scaled": [], "params": []}
    _loop(case, w, opt, scaler, range(TORCH["steps"]), out)
    assert out == {k: case[k] for k in out}
