"""Float-valued functions of integer input answer in the default float dtype, as PyTorch's.

``torch.cov``, ``corrcoef``, ``ldexp``, ``logsumexp``, ``trapezoid``/``trapz``,
``cumulative_trapezoid`` of an int64 tensor are float32 (the default dtype) in torch 2.13; the
engine answered float64 (NumPy's promotion), so a float32 model fed such a result met a float64
tensor.  ``softmax``/``log_softmax`` of integers are PyTorch's refusal (tests/test_integer_op_refusals.py);
with ``dtype=mg.float32`` they answer float32.  The values below are torch 2.13's.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

I = [[3, -7, 0], [2, 5, -2]]

CASES = {
    "cov": (lambda i: i.cov(), [[26.333334, -11.166667], [-11.166667, 12.333334]]),
    "mg.cov": (lambda i: mg.cov(i), [[26.333334, -11.166667], [-11.166667, 12.333334]]),
    "corrcoef": (lambda i: i.corrcoef(), [[1.0, -0.6196271], [-0.6196271, 1.0]]),
    "ldexp": (lambda i: mg.ldexp(i, mg.tensor([1, 2, -3], device=i.device)), [[6.0, -28.0, 0.0], [4.0, 20.0, -0.25]]),
    "logsumexp": (lambda i: i.logsumexp(1), [3.0486305, 5.0494556]),
    "mg.logsumexp dim": (lambda i: mg.logsumexp(i, dim=1), [3.0486305, 5.0494556]),
    "trapezoid": (lambda i: mg.trapezoid(i), [-5.5, 5.0]),
    "trapz x": (lambda i: mg.trapz(i, mg.tensor([0, 1, 3], device=i.device)), [-9.0, 6.5]),
    "cumulative_trapezoid": (lambda i: mg.cumulative_trapezoid(i, dim=0), [[2.5, -1.0, -1.0]]),
    "softmax": (lambda i: i.softmax(0, dtype=mg.float32),
                [[0.7310586, 6.144174e-06, 0.880797], [0.26894143, 0.9999938, 0.11920292]]),
    "F.softmax": (lambda i: mg.nn.functional.softmax(i, dim=0, dtype=mg.float32),
                  [[0.7310586, 6.144174e-06, 0.880797], [0.26894143, 0.9999938, 0.11920292]]),
    "log_softmax": (lambda i: i.log_softmax(0, dtype=mg.float32), np.log([[0.7310586, 6.144174e-06, 0.880797],
                                                       [0.26894143, 0.9999938, 0.11920292]])),
}


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_input_answers_in_float32(name, device):
    spelling, expected = CASES[name]
    out = spelling(mg.tensor(I, device=device))
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.numpy(), expected, rtol=2e-6, atol=1e-6)


def test_the_default_dtype_decides_and_float_input_keeps_its_own():
    i = mg.tensor(I)
    mg.set_default_dtype(mg.float64)
    try:
        assert i.cov().dtype == mg.float64 and i.logsumexp(0).dtype == mg.float64
    finally:
        mg.set_default_dtype(mg.float32)
    d = mg.tensor(I, dtype=mg.float64)
    assert d.cov().dtype == mg.float64 and mg.trapezoid(d).dtype == mg.float64
    assert mg.softmax(i, 0, dtype=mg.float64).dtype == mg.float64     # dtype= still casts first
    x = mg.tensor(I, dtype=mg.float32, requires_grad=True)
    x.logsumexp(1).sum().backward()
    assert x.grad.dtype == mg.float32
