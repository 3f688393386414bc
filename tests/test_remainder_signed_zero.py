"""A zero remainder takes the sign of the dividend, as torch 2.13's (its remainder starts from
``fmod``): ``mg.remainder(-1.0, 1.0)`` and ``-2.5 % 2.5`` are ``-0.0``, where NumPy's ``mod``
answered ``+0.0`` (the divisor's sign).  Nonzero results keep the divisor's sign, as before.
The signs below are torch's."""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)


def _signed(t):
    return [(math.copysign(1.0, v), v) for v in t.tolist()]


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_a_zero_remainder_has_the_dividends_sign(device):
    t = lambda v: mg.tensor(v, device=device)  # noqa: E731
    assert _signed(mg.remainder(t([-1.0, 1.0, -0.0, 0.0, -2.5, 2.5, 3.0]), 1.0)) == [
        (-1.0, -0.0), (1.0, 0.0), (-1.0, -0.0), (1.0, 0.0), (1.0, 0.5), (1.0, 0.5), (1.0, 0.0)]
    assert _signed(t([0.0, -2.5, 2.5, 1.0]) % -1.0) == [(1.0, 0.0), (-1.0, -0.5), (-1.0, -0.5), (1.0, 0.0)]
    assert _signed(5.0 % t([-5.0, 5.0])) == [(1.0, 0.0), (1.0, 0.0)]
    assert _signed(t([-2.5]) % 2.5) == [(-1.0, -0.0)]
    assert _signed(mg.remainder(t([-4.0, 4.0, -0.0]), t([2.0, -2.0, -3.0]))) == [(-1.0, -0.0), (1.0, 0.0), (-1.0, -0.0)]
    assert _signed(t([-1.0, 1.0]).to(mg.float16) % 1.0) == [(-1.0, -0.0), (1.0, 0.0)]
    x = t([-1.0, 1.0])
    x.remainder_(1.0)
    assert _signed(x) == [(-1.0, -0.0), (1.0, 0.0)]
    assert (mg.tensor([-3, 3], device=device) % 2).tolist() == [1, 1]  # integers: unchanged


def test_the_gradient_is_unchanged():
    x = mg.tensor([-1.0, 2.5], requires_grad=True)
    y = mg.tensor([1.0, 1.0], requires_grad=True)
    mg.remainder(x, y).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and y.grad.tolist() == [1.0, -2.0]
