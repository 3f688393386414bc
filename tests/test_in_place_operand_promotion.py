"""``x <op>= y`` computes in the dtype PyTorch computes it in, whatever ``y`` is.

PyTorch's in-place result type is ``result_type(x, y)``: a 0-d tensor of the same category as an
n-d ``x``, an operand of a lower category, and a NumPy number (weak, as a Python number) are taken
in ``x``'s dtype before the arithmetic.  NumPy's ``out=`` computed in the wider dtype and rounded
into ``x``: ``f32.mul_(0-d f64 0.1)`` was 0.01 (torch 2.13: 0.010000001, 0.1 rounded to float32
first), ``f16.add_(np.float64(1e5))`` of -inf was -inf (torch: NaN, 1e5 is inf in float16),
``f.add_(np.uint8(200), alpha=2)`` added 144 (torch: 400) and ``int8.div_(np.int16(300),
rounding_mode="floor")`` divided by 300 (torch: by 300 wrapped into int8, 44).  The numbers below
are torch 2.13's.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

DEVICES = ["cpu", "strict"]


def _bits(t):
    return np.asarray(t.detach().cpu().numpy())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("write", ["method", "operator"])
def test_a_zero_dim_operand_of_the_same_category_is_taken_in_the_tensors_dtype(device, write):
    x = mg.tensor([0.1, 2.0], dtype=mg.float32, device=device)
    point_one = mg.tensor(0.1, dtype=mg.float64, device=device)
    if write == "method":
        x.mul_(point_one)
    else:
        x *= point_one
    assert x.dtype == mg.float32
    assert _bits(x).tolist() == [np.float32(0.010000000707805157), np.float32(0.2)]
    y = mg.tensor([0.1], dtype=mg.float32, device=device)
    y -= point_one
    assert _bits(y).tolist() == [0.0]                   # (NumPy's: 1.49e-09, the float32 0.1 minus the float64 one)


@pytest.mark.parametrize("device", DEVICES)
def test_a_numpy_number_is_weak_in_place_as_out_of_place(device):
    h = mg.tensor(np.array([-np.inf, 0.1, -0.0], np.float16), device=device)
    h.add_(np.float64(1e5))                             # 1e5 is inf in float16: -inf + inf
    assert np.isnan(_bits(h)[0]) and _bits(h)[1:].tolist() == [np.inf, np.inf]
    x = mg.tensor([0.1], dtype=mg.float32, device=device)
    x.mul_(np.float64(0.1))
    assert _bits(x).tolist() == [np.float32(0.010000000707805157)]


@pytest.mark.parametrize("device", DEVICES)
def test_a_wider_zero_dim_integer_is_rounded_into_a_float16_tensor(device):
    h = mg.tensor(np.array([-np.inf, 1.0], np.float16), device=device)
    h += mg.tensor(2 ** 63 - 1, device=device)         # inf in float16
    assert np.isnan(_bits(h)[0]) and _bits(h)[1] == np.inf


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.int64])
def test_an_alpha_scales_a_numpy_integer_as_the_int_it_is(device, dtype):
    x = mg.tensor([-2, 1], dtype=dtype, device=device)
    x.add_(np.uint8(200), alpha=2)                      # 400, not 200 * 2 wrapped in uint8 (144)
    assert x.tolist() == [398, 401]
    x.sub_(np.uint8(200), alpha=2)
    assert x.tolist() == [-2, 1]


@pytest.mark.parametrize("device", DEVICES)
def test_a_rounded_division_by_a_numpy_integer_keeps_the_tensors_dtype(device):
    x = mg.tensor([100, -7], dtype=mg.int8, device=device)
    q = mg.div(x, np.int16(300), rounding_mode="floor")  # 300 wraps into int8: 44
    assert q.dtype == mg.int8 and q.tolist() == [2, -1]
    assert mg.div(x, np.uint8(200), rounding_mode="trunc").tolist() == [-1, 0]  # 200 is -56 in int8
    x.div_(np.int16(300), rounding_mode="floor")
    assert x.tolist() == [2, -1]


def test_on_the_tape_the_answer_and_the_gradient_are_the_same():
    w = mg.tensor([0.1, 2.0], dtype=mg.float32, requires_grad=True)
    y = w * 1
    y.mul_(mg.tensor(0.1, dtype=mg.float64))
    assert _bits(y).tolist() == [np.float32(0.010000000707805157), np.float32(0.2)]
    y.sum().backward()
    assert w.grad.dtype == mg.float32 and _bits(w.grad).tolist() == [np.float32(0.1)] * 2


def test_forward_mode_and_checkpoint_agree():
    point_one = mg.tensor(0.1, dtype=mg.float64)

    def f(x):
        y = x * 1
        y.mul_(point_one)
        return y

    x = mg.tensor([0.1], dtype=mg.float32)
    out, tangent = mg.func.jvp(f, (x,), (mg.ones_like(x),))
    assert _bits(out).tolist() == [np.float32(0.010000000707805157)] and tangent.dtype == mg.float32
    xc = mg.tensor([0.1], dtype=mg.float32, requires_grad=True)
    assert _bits(mg.checkpoint.checkpoint(f, xc, use_reentrant=False)).tolist() == _bits(out).tolist()
