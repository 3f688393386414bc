"""``x.uniform_(a, b)`` scales its fresh draws in place (float32/float64 on the CPU): the same bits as
the tensor arithmetic it stands for, ``rand * (b - a) + a`` clamped below ``b``, on every kind of
bounds -- the rounding that reaches ``b`` (float32's ``uniform_(1000, 1001)``) included."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.functional.random_fills import _below

BOUNDS = [(0.0, 1.0), (-0.1, 0.1), (-1.0, 0.0), (1000.0, 1001.0), (5.0, 5.0), (-3e38, 3e38), (1e-30, 2e-30),
          (-2.5, 1e-45), (0.0, 1e-50)]


def _by_tensor_arithmetic(shape, dtype, low, high, seed):
    mg.manual_seed(seed)
    value = mg.rand(*shape, dtype=dtype) * (high - low) + low
    top = _below(high, np.dtype(dtype))
    return (value.clamp(max=top) if top >= low else value).numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("low, high", BOUNDS)
def test_uniform_fill_is_the_tensor_arithmetic_bit_for_bit(dtype, low, high):
    if dtype == "float32" and abs(high - low) > 3.4e38:
        pytest.skip("to - from past float32's range is refused")
    shape = (300, 70)
    mg.manual_seed(7)
    x = mg.empty(*shape, dtype=dtype).uniform_(low, high)
    want = _by_tensor_arithmetic(shape, dtype, low, high, 7)
    assert x.numpy().tobytes() == want.tobytes()


def test_the_rounding_that_reaches_to_is_clamped_below_it():
    mg.manual_seed(0)
    x = mg.empty(100_000, dtype="float32").uniform_(1000, 1001)
    assert x.numpy().max() < 1001 and x.numpy().max() == np.nextafter(np.float32(1001), np.float32(0))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_the_strict_devices_draw_the_same_values(device):
    mg.manual_seed(3)
    cpu = mg.empty(40, 30).uniform_(-2, 3).numpy()
    mg.manual_seed(3)
    there = mg.empty(40, 30, device=device).uniform_(-2, 3).cpu().numpy()
    assert there.tobytes() == cpu.tobytes()


def test_a_parameter_filled_under_no_grad_keeps_its_identity_and_version_rule():
    p = mg.nn.Parameter(mg.zeros(500, 400))
    v = p._version
    with mg.no_grad():
        q = p.uniform_(-1, 1)
    assert q is p and p._version != v and p.requires_grad and float(p.abs().max()) <= 1
