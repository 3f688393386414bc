"""The op battery a second time, on the strict stand-in devices (see docs/devices.md).

For every registered op, drawn samples run forward, backward and forward mode (jvp) on the CPU and
on ``"strict"`` -- where implicit host conversion, host/device mixing and any
function outside the backend's whitelist fail loudly, as they would (or worse)
on a GPU -- and must agree bit for bit.  Float32 samples also run on
``"strict-f32"``, which rejects every float64 array: no hidden upcast.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.backward import grad as tape_grad
from minigrad_ckpt.ops import registry
from minigrad_ckpt.tape import apply
from minigrad_ckpt.tensor import Tensor
from minigrad_ckpt.testing.strict import StrictDeviceError

from .op_db import Sample
from .test_op_battery import OPS, copies, draw_upstream, spec_for


def _to_device(v: Any, xp: Any) -> Any:
    """Attribute values on a device: arrays transferred, containers walked."""
    if isinstance(v, np.ndarray):
        return xp.asarray(v)
    if isinstance(v, tuple):
        return tuple(_to_device(x, xp) for x in v)
    if isinstance(v, list):
        return [_to_device(x, xp) for x in v]
    return v


def on_device(op: Any, dev: Any) -> Any:
    return type(op)(**{k: _to_device(v, dev.xp) for k, v in op.attrs.items()})


def run_on(device: str, sample: Sample, arrays: list, g: np.ndarray | None) -> tuple[np.ndarray, list]:
    dev = mg.device(device)
    op = sample.op if device == "cpu" else on_device(sample.op, dev)
    args, wrt = [], []
    for v, d in zip(arrays, sample.diff):
        if isinstance(v, np.ndarray):
            t = Tensor._wrap(dev.xp.asarray(v) if device != "cpu" else v, None, dev)
            if g is not None and d:
                t.requires_grad = True
                wrt.append(t)
            args.append(t)
        else:
            args.append(v)
    out = apply(op, *args)
    grads = []
    if g is not None and wrt:
        gt = Tensor._wrap(dev.xp.asarray(g) if device != "cpu" else g, None, dev)
        grads = [None if r is None else r._data for r in tape_grad(out, wrt, grad_outputs=gt, allow_unused=True)]
    host = dev.xp.to_host
    return host(out._data), [None if r is None else host(r) for r in grads]


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_op_on_the_strict_device_matches_the_cpu(device: str, name: str, data: Any) -> None:
    spec = spec_for(name)
    differentiable = not spec.forward_only and registry[name].differentiable
    dtype = np.dtype("float32" if device == "strict-f32" else "float64")
    if dtype.name not in spec.forward_dtypes and not differentiable:
        pytest.skip(f"{name} is not checked in {dtype}")
    sample = data.draw(spec.samples(dtype, grad=differentiable), label="sample")
    out_c, _ = run_on("cpu", sample, copies(sample), None)
    g = draw_upstream(data, out_c.shape, out_c.dtype) if differentiable and out_c.dtype.kind in "fc" else None
    out_c, grads_c = run_on("cpu", sample, copies(sample), g)
    if device == "strict-f32" and out_c.dtype in (np.float64, np.complex128):  # forbidden there
        with pytest.raises(StrictDeviceError, match="float64|complex128"):
            run_on(device, sample, copies(sample), g)
        return
    out_s, grads_s = run_on(device, sample, copies(sample), g)
    assert out_s.dtype == out_c.dtype and out_s.shape == out_c.shape
    _assert_same(out_s, out_c, "forward differs on the strict device")
    for k, (a, b) in enumerate(zip(grads_s, grads_c)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype
            _assert_same(a, b, f"gradient of input {k} differs on the strict device")


def _assert_same(a: np.ndarray, b: np.ndarray, what: str) -> None:
    """Bitwise, complex numbers included: where NumPy on the CPU computes with scalars (a 0-d
    result), the strict device computes with the same scalars (``StrictScalar``), so even a
    complex product -- which NumPy's scalar math rounds unlike its array loop -- agrees."""
    np.testing.assert_array_equal(a, b, err_msg=what)


def jvp_on(device: str, sample: Sample, arrays: list, tangents: list) -> np.ndarray:
    """The output tangent of ``mg.func.jvp`` on ``device`` (tangents on the differentiable inputs)."""
    dev = mg.device(device)
    op = sample.op if device == "cpu" else on_device(sample.op, dev)
    args = [Tensor._wrap(dev.xp.asarray(v) if device != "cpu" else v, None, dev)
            if isinstance(v, np.ndarray) else v for v in arrays]
    which = [k for k, (v, d) in enumerate(zip(arrays, sample.diff)) if d and isinstance(v, np.ndarray)]

    def f(*xs: Any) -> Tensor:
        a = list(args)
        for k, x in zip(which, xs):
            a[k] = x
        return apply(op, *a)

    ts = tuple(Tensor._wrap(dev.xp.asarray(tangents[k]) if device != "cpu" else tangents[k], None, dev)
               for k in which)
    _, t = mg.func.jvp(f, tuple(args[k] for k in which), ts)
    return dev.xp.to_host(t._data)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_jvp_on_the_strict_device_matches_the_cpu(device: str, name: str, data: Any) -> None:
    # forward mode follows backward's namespace rules: whitelisted functions
    # only, no host round trips, no hidden float64 -- checked as for backward
    spec = spec_for(name)
    if spec.forward_only or not registry[name].differentiable:
        pytest.skip(f"{name} is forward-only (not differentiable)")
    dtype = np.dtype("float32" if device == "strict-f32" else "float64")
    sample = data.draw(spec.samples(dtype, grad=True), label="sample")
    if not any(d and isinstance(v, np.ndarray) for v, d in zip(sample.inputs, sample.diff)):
        return
    tangents = [draw_upstream(data, v.shape, v.dtype) if isinstance(v, np.ndarray) and v.dtype.kind in "fc"
                else None for v in sample.inputs]
    t_c = jvp_on("cpu", sample, copies(sample), tangents)
    if device == "strict-f32" and t_c.dtype in (np.float64, np.complex128):  # forbidden there
        return
    t_s = jvp_on(device, sample, copies(sample), tangents)
    assert t_s.dtype == t_c.dtype and t_s.shape == t_c.shape
    _assert_same(t_s, t_c, "jvp differs on the strict device")
