"""The GPU op battery's runner (``op_battery_gpu.py``), checked without a GPU on the strict device.

The GPU test set runs it only where CuPy sees a GPU, so its own logic -- sampling every op,
comparing forward, backward and jvp, reporting instead of stopping -- is checked here.
"""

from __future__ import annotations

import numpy as np

import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from property_tests import op_battery_gpu
from property_tests.op_battery_gpu import OPS, run_all_ops_on


def test_ops_agree_on_the_strict_device():
    # every fifth op: the strict battery itself checks all of them, bitwise
    assert run_all_ops_on("strict", names=OPS[::5], examples=1) == []


def test_a_device_that_computes_wrongly_is_reported_per_op_and_dtype(monkeypatch):
    real_run_on, real_jvp_on = op_battery_gpu.run_on, op_battery_gpu.jvp_on

    def off_by_a_little(device, sample, arrays, g):
        out, grads = real_run_on(device, sample, arrays, g)
        return (out + 1e-3 if device != "cpu" and out.dtype.kind in "fc" else out), grads

    def jvp_off(device, sample, arrays, tangents):
        t = real_jvp_on(device, sample, arrays, tangents)
        return t * 1.01 if device != "cpu" and t.dtype.kind in "fc" else t

    monkeypatch.setattr(op_battery_gpu, "run_on", off_by_a_little)
    failures = run_all_ops_on("strict", names=["Exp", "ArgMax"], examples=1)
    assert len(failures) == 2 and all(f.startswith("Exp [float") for f in failures), failures
    assert "forward" in failures[0]
    monkeypatch.setattr(op_battery_gpu, "run_on", real_run_on)
    monkeypatch.setattr(op_battery_gpu, "jvp_on", jvp_off)
    failures = run_all_ops_on("strict", names=["Tanh"], examples=1)
    assert [f.split(" ")[0] for f in failures] == ["Tanh", "Tanh"] and "jvp" in failures[1]


def test_it_reports_an_error_raised_on_the_device_and_goes_on(monkeypatch):
    real_run_on = op_battery_gpu.run_on

    def refuses_sin(device, sample, arrays, g):
        if device != "cpu" and type(sample.op).__name__ == "Sin":
            raise TypeError("no kernel for sin")
        return real_run_on(device, sample, arrays, g)

    monkeypatch.setattr(op_battery_gpu, "run_on", refuses_sin)
    failures = run_all_ops_on("strict", names=["Sin", "Cos"], examples=1)
    assert len(failures) == 2 and all(f.startswith("Sin [") and "TypeError" in f for f in failures), failures
    assert np.isin(["Sin", "Cos"], OPS).all()
