"""Every registered op on a real device, against the CPU: the GPU test set's op battery.

``tests/gpu/test_gpu.py::test_every_registered_op_runs_on_the_gpu`` calls
:func:`run_all_ops_on` with ``"cuda"``.  For each op of the registry and each
dtype its spec checks, a few samples drawn from ``property_tests/op_db.py``
(the same generators the CPU battery uses, derandomized so that a failure
repeats) run forward, backward and forward mode (jvp) on the CPU and on the
device, and must agree within a tolerance: a GPU sums and rounds its
transcendental functions in its own order, so bitwise equality -- which the
strict stand-in device checks (``test_op_battery_strict.py``) -- is not the
contract here.  Integer and boolean outputs must agree exactly.

It returns the failures as lines instead of stopping at the first: one GPU run
is minutes of a borrowed machine, so it reports everything at once.

    from op_battery_gpu import run_all_ops_on
    assert not run_all_ops_on("cuda", rtol=2e-4, atol=2e-5)
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from minigrad_ckpt.ops import registry
from property_tests.test_op_battery import OPS, copies, draw_upstream, op_db
from property_tests.test_op_battery_strict import jvp_on, run_on

__all__ = ["run_all_ops_on"]

# float64 on a GPU: the same IEEE arithmetic, other libm implementations (a few ulps apart)
FLOAT64_RTOL, FLOAT64_ATOL = 1e-9, 1e-12


def _close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float, what: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} on the device, {want.dtype} on the CPU"
    assert got.shape == want.shape, f"{what}: shape {got.shape} on the device, {want.shape} on the CPU"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _check_one(device: str, name: str, dtype: np.dtype, examples: int, rtol: float, atol: float) -> None:
    spec = op_db[name]
    differentiable = not spec.forward_only and registry[name].differentiable

    # no shrinking: a failure is reported by its first lines and the run goes on, so a smaller
    # failing example would not be shown -- and shrinking one failing op took ~700 runs of it
    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate))
    @given(data=st.data())
    def check(data: Any) -> None:
        sample = data.draw(spec.samples(dtype, grad=differentiable), label="sample")
        out_c, _ = run_on("cpu", sample, copies(sample), None)
        g = draw_upstream(data, out_c.shape, out_c.dtype) if differentiable and out_c.dtype.kind in "fc" else None
        out_c, grads_c = run_on("cpu", sample, copies(sample), g)
        out_d, grads_d = run_on(device, sample, copies(sample), g)
        _close(out_d, out_c, rtol, atol, "forward")
        for k, (a, b) in enumerate(zip(grads_d, grads_c)):
            assert (a is None) == (b is None), f"gradient of input {k}: None on one side only"
            if a is not None:
                _close(a, b, rtol, atol, f"gradient of input {k}")
        if differentiable and any(d and isinstance(v, np.ndarray) for v, d in zip(sample.inputs, sample.diff)):
            tangents = [draw_upstream(data, v.shape, v.dtype, label="tangent")
                        if isinstance(v, np.ndarray) and v.dtype.kind in "fc" else None for v in sample.inputs]
            _close(jvp_on(device, sample, copies(sample), tangents),
                   jvp_on("cpu", sample, copies(sample), tangents), rtol, atol, "jvp")

    check()


def run_all_ops_on(device: str, rtol: float = 2e-4, atol: float = 2e-5, names: Iterable[str] | None = None,
                   examples: int = 3) -> list[str]:
    """Run every registered op (or those in ``names``) on ``device`` and on the CPU; return one
    line per op and dtype that disagreed or raised (empty: all agree).

    ``rtol``/``atol`` apply to float32 and complex64 samples; float64 samples are held to
    ``FLOAT64_RTOL``/``FLOAT64_ATOL``.  An op whose spec does not check a dtype is skipped for it,
    as in the CPU battery.
    """
    failures = []
    for name in OPS if names is None else names:
        spec = op_db.get(name)
        if spec is None:
            failures.append(f"{name}: registered without an OpSpec in property_tests/op_db.py")
            continue
        differentiable = not spec.forward_only and registry[name].differentiable
        for dtype in (np.dtype("float32"), np.dtype("float64")):
            if dtype.name not in spec.forward_dtypes and not differentiable:
                continue
            tol = (rtol, atol) if dtype == np.float32 else (FLOAT64_RTOL, FLOAT64_ATOL)
            try:
                _check_one(device, name, dtype, examples, *tol)
            except Exception as e:  # noqa: BLE001  (every failure is reported, none stops the run)
                where = traceback.extract_tb(e.__traceback__)[-1]
                first = str(e).strip().splitlines()[:6]
                failures.append(f"{name} [{dtype}] {type(e).__name__} at {where.filename}:{where.lineno}: "
                                + " | ".join(first))
    return failures
