"""Floor division as PyTorch's: ``div(rounding_mode="floor")`` is ``//`` (not ``floor(x / y)``),
and integers divide exactly up to their dtype's limits.

The expected values are torch 2.13's (CPU), written in as literals; each comment names the
torch expression that made them.
"""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

NAN, INF = math.nan, math.inf
X = [1.0, INF, -7.5, 5.0, -0.0, 3.0, NAN]


def _same(t, expected):
    got = np.asarray(t.numpy(), dtype=np.float64)
    want = np.asarray(expected, dtype=np.float64)
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    numbers = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))  # -0.0 is -0.0


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_div_floor_is_floor_division(dtype):
    x = mg.tensor(X, dtype=dtype)
    # torch.div(x, 0.1, rounding_mode='floor') (== x // 0.1) for x = tensor(X, dtype)
    by_tenth = [9.0, NAN, -75.0, 49.0, -0.0, 29.0, NAN]
    _same(x.div(0.1, rounding_mode="floor"), by_tenth)
    _same(mg.divide(x, 0.1, rounding_mode="floor"), by_tenth)
    _same(x // 0.1, by_tenth)
    # torch.div(x, 2.5, rounding_mode='floor'): inf // 2.5 is nan
    _same(mg.div(x, mg.tensor(2.5, dtype=dtype), rounding_mode="floor"), [0.0, NAN, -3.0, 2.0, -0.0, 1.0, NAN])
    # torch.div(torch.tensor(2.5, dtype=dtype), x, rounding_mode='floor'): a number on the left too
    _same(mg.div(2.5, x, rounding_mode="floor"), [2.0, 0.0, -1.0, 0.0, -INF, 0.0, NAN])
    # torch.div(x, 0.0 / -0.0, rounding_mode='floor'): x / y where y == 0
    _same(mg.div(x, 0.0, rounding_mode="floor"), [INF, INF, -INF, INF, NAN, INF, NAN])
    _same(mg.div(x, -0.0, rounding_mode="floor"), [-INF, -INF, INF, -INF, NAN, -INF, NAN])


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_div_floor_in_place(dtype):
    x = mg.tensor(X, dtype=dtype)
    assert x.div_(0.1, rounding_mode="floor") is x  # torch: y.div_(0.1, rounding_mode='floor')
    _same(x, [9.0, NAN, -75.0, 49.0, -0.0, 29.0, NAN])
    y = mg.tensor([1.0, -7.5], dtype=dtype)
    y.divide_(mg.tensor([0.1, 2.0], dtype=dtype), rounding_mode="floor")
    _same(y, [9.0, -4.0])


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_div_floor_gradient_is_zero_in_both_modes(dtype):
    # torch: a.grad and b.grad of torch.div(a, b, rounding_mode='floor').sum() are zeros
    a = mg.tensor([1.0, -7.5], dtype=dtype, requires_grad=True)
    b = mg.tensor([0.1, 2.0], dtype=dtype, requires_grad=True)
    mg.div(a, b, rounding_mode="floor").sum().backward()
    _same(a.grad, [0.0, 0.0])
    _same(b.grad, [0.0, 0.0])
    ga, gb = mg.func.grad(lambda u, v: mg.div(u, v, rounding_mode="floor").sum(), argnums=(0, 1))(
        a.detach(), b.detach())
    _same(ga, [0.0, 0.0])
    _same(gb, [0.0, 0.0])
    out, tangent = mg.func.jvp(lambda u: mg.div(u, 0.1, rounding_mode="floor"), (a.detach(),),
                               (mg.ones_like(a),))
    _same(out, [9.0, -75.0])
    _same(tangent, [0.0, 0.0])


def test_integer_floor_division_near_the_limits():
    i32 = mg.int32
    # torch: tensor([2**31-1, -2**31, -2**31, 7, -7], int32) // tensor([-3, 3, 2**31-1, 2, 2], int32)
    q = mg.tensor([2**31 - 1, -2**31, -2**31, 7, -7], dtype=i32) // mg.tensor([-3, 3, 2**31 - 1, 2, 2], dtype=i32)
    assert q.dtype == i32 and q.tolist() == [-715827883, -715827883, -2, 3, -4]
    assert (mg.tensor([2**31 - 1], dtype=i32) // -3).tolist() == [-715827883]  # torch: same expression
    assert (mg.tensor([-2**63]) // 3).tolist() == [-3074457345618258603]  # torch: tensor([-2**63]) // 3
    assert (2 // mg.tensor([-2**31], dtype=i32)).tolist() == [-1]  # torch: 2 // tensor([-2**31], int32)
    assert (mg.tensor([-2**31], dtype=i32) // -1).tolist() == [-2**31]  # torch: wraps to -2**31
    assert mg.floor_divide(mg.tensor([2**31 - 1], dtype=i32), -3).tolist() == [-715827883]
    # torch: tensor([-128, 127, 5], int8) // tensor([3, -2, -128], int8); uint8 likewise
    i8 = mg.tensor([-128, 127, 5], dtype=mg.int8) // mg.tensor([3, -2, -128], dtype=mg.int8)
    assert i8.tolist() == [-43, -64, -1]
    u8 = mg.tensor([200, 255, 0], dtype=mg.uint8) // mg.tensor([3, 2, 7], dtype=mg.uint8)
    assert u8.tolist() == [66, 127, 0]
    # torch.div(tensor([2**31-1], int32), -3, rounding_mode='floor')
    assert mg.div(mg.tensor([2**31 - 1], dtype=i32), -3, rounding_mode="floor").tolist() == [-715827883]


def test_integer_remainders_near_the_limits():
    i32 = mg.int32
    a = mg.tensor([2**31 - 1, -2**31, -2**31, 1], dtype=i32)
    b = mg.tensor([-3, 3, 2**31 - 1, -2**31], dtype=i32)
    assert mg.remainder(a, b).tolist() == [-2, 1, 2147483646, -2147483647]  # torch.remainder(a, b)
    assert (a % b).tolist() == [-2, 1, 2147483646, -2147483647]
    assert mg.fmod(a, b).tolist() == [1, -2, -1, 1]  # torch.fmod(a, b)
    a64, b64 = mg.tensor([-2**63, 2**63 - 1]), mg.tensor([3, -2**63])
    assert mg.remainder(a64, b64).tolist() == [1, -1]  # torch.remainder, int64
    assert mg.fmod(a64, b64).tolist() == [-2, 2**63 - 1]  # torch.fmod, int64
