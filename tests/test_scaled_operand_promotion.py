"""``alpha * y`` in ``add``/``sub``/``rsub`` and ``value * t1`` in ``addcmul``/``addcdiv`` are
computed in the dtype of the whole result, as PyTorch computes them -- not in the scaled operand's
own dtype, where a uint8 200 times 2 wraps to 144 and a float64 sum's Python number 1e40 became
a float32 inf.  ``addr`` takes its outer product in the common dtype, its input counting as a
tensor of the product's shape.  The expected values are torch 2.13's (made offline)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

DEVICES = ["cpu", "strict"]


def _u8(values, device):
    return mg.tensor(values, dtype=mg.uint8, device=device)


def _host(t):
    return mg.backend.to_host(t._data)


@pytest.mark.parametrize("device", DEVICES)
def test_alpha_scales_in_the_sum_dtype(device):
    u, half = _u8([200], device), mg.tensor([0.5], device=device)
    cases = [
        (lambda: half.add(u, alpha=2), [400.5], mg.float32),
        (lambda: mg.sub(half, u, alpha=2), [-399.5], mg.float32),
        (lambda: mg.add(half, u, alpha=2), [400.5], mg.float32),
        (lambda: mg.rsub(u, half, alpha=2), [-399.5], mg.float32),
        (lambda: mg.tensor([1.0], dtype=mg.float64, device=device).add(1e40, alpha=2), [2e40], mg.float64),
        (lambda: mg.tensor([1.0], device=device).add(1e40, alpha=2), [np.inf], mg.float32),
        (lambda: mg.tensor([1], dtype=mg.int8, device=device).add(100, alpha=2), [-55], mg.int8),
    ]
    for make, want, dtype in cases:
        got = make()
        assert got.dtype == dtype
        assert np.array_equal(_host(got), np.array(want, dtype=got.dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_alpha_scales_in_the_sum_dtype_in_place(device):
    u = _u8([200], device)
    x = mg.tensor([0.5], device=device)
    x.add_(u, alpha=2)
    assert _host(x).tolist() == [400.5]
    x = mg.tensor([0.5], device=device)
    x.sub_(u, alpha=2)
    assert _host(x).tolist() == [-399.5]
    x = mg.tensor([1], dtype=mg.int16, device=device)
    x.add_(u, alpha=2)
    assert _host(x).tolist() == [401]


def test_alpha_scales_a_tensor_that_requires_grad_in_the_sum_dtype():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    y = mg.tensor([3.0, 4.0], dtype=mg.float32, requires_grad=True)
    out = mg.add(x, y, alpha=1 / 3)
    assert out.dtype == mg.float64
    assert np.array_equal(out.detach().numpy(), np.array([1.0, 2.0]) + (1 / 3) * np.array([3.0, 4.0]))
    out.sum().backward()
    assert y.grad.dtype == mg.float32 and np.array_equal(y.grad.numpy(), np.full(2, np.float32(1 / 3)))


@pytest.mark.parametrize("device", DEVICES)
def test_addcmul_and_addcdiv_compute_in_the_common_dtype(device):
    i = mg.tensor([1, 2], device=device)
    c = mg.tensor(1 + 1j, dtype=mg.complex128, device=device)
    assert mg.addcmul(i, i, c, value=0.5).dtype == mg.complex128
    assert np.array_equal(_host(mg.addcmul(i, i, c, value=0.5)), [1.5 + 0.5j, 3 + 1j])
    assert mg.addcmul(c, i, i, value=0.5).dtype == mg.complex128
    assert np.array_equal(_host(mg.addcdiv(i, i, c, value=0.5)), [1.25 - 0.25j, 2.5 - 0.5j])
    assert _host(mg.addcmul(mg.zeros(1, device=device), _u8([200], device), _u8([200], device))).tolist() == [40000]
    # a float value for an integer sum is truncated, as torch converts it
    for value, want in [(1.7, [2, 6]), (-0.5, [1, 2]), (-1.7, [0, -2]), (2.5, [3, 10])]:
        got = mg.addcmul(i, i, i, value=value)
        assert got.dtype == mg.int64 and _host(got).tolist() == want
    got = mg.addcdiv(mg.tensor([1], device=device), mg.tensor([3.0], device=device), mg.tensor([7], device=device),
                     value=2)
    assert got.dtype == mg.float32 and np.array_equal(_host(got), np.float32([1 + 2 * np.float32(3) / np.float32(7)]))


def test_addcmul_of_mixed_float_dtypes_sends_each_operand_its_gradient_in_its_dtype():
    x = mg.tensor([1.0, 2.0], dtype=mg.float32, requires_grad=True)
    t1 = mg.tensor([3.0, 4.0], dtype=mg.float32, requires_grad=True)
    t2 = mg.tensor([1e-3, 5.0], dtype=mg.float64, requires_grad=True)
    out = mg.addcmul(x, t1, t2, value=0.1)
    assert out.dtype == mg.float64
    want = np.float64([1.0, 2.0]) + 0.1 * np.float64([3.0, 4.0]) * np.float64([1e-3, 5.0])
    assert np.array_equal(out.detach().numpy(), want)
    out.sum().backward()
    assert (x.grad.dtype, t1.grad.dtype, t2.grad.dtype) == (mg.float32, mg.float32, mg.float64)
    assert np.array_equal(t1.grad.numpy(), (0.1 * np.float64([1e-3, 5.0])).astype(np.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_addr_takes_its_outer_product_in_the_common_dtype(device):
    u = _u8([200, 3], device)
    got = mg.addr(mg.zeros(2, 2, device=device), u, u)
    assert got.dtype == mg.float32 and _host(got).tolist() == [[40000, 600], [600, 9]]
    got = mg.addr(mg.zeros(2, 2, dtype=mg.int64, device=device), u, u, alpha=2)
    assert got.dtype == mg.int64 and _host(got).tolist() == [[80000, 1200], [1200, 18]]
    f = mg.tensor([1.0, 2.0], device=device)
    assert mg.addr(mg.tensor(1.5, dtype=mg.float64, device=device), f, f).dtype == mg.float64
    assert mg.addr(mg.tensor(1 + 1j, dtype=mg.complex128, device=device), f, f).dtype == mg.complex128
    big = mg.tensor([300.0, 300.0], device=device)
    got = mg.addr(mg.zeros(2, 2, dtype=mg.float16, device=device), big, big)
    assert got.dtype == mg.float32 and _host(got).tolist() == [[90000] * 2] * 2


@pytest.mark.parametrize("device", DEVICES)
def test_a_zero_dim_operand_does_not_decide_the_in_place_dtype(device):
    """PyTorch's rule: a 0-d tensor of the same category does not widen the computation, so a float16
    tensor plus 7 times a float32 0-d tensor is computed (and overflows) in float16, in place as
    ``mg.add`` does out of place: the 0-d operand is rounded to float16, and the half kernel takes
    ``x + 7 * y`` in float32 and rounds once (its vectorized loop, for 32 elements and more; torch's
    scalar loop, for a one-element tensor, rounds ``7 * y`` first: -79.94)."""
    x = mg.tensor([12.57], dtype=mg.float16, device=device)
    y = mg.tensor(np.float32(-13.210486), device=device)
    want = mg.add(x, y, alpha=7)
    x.add_(y, alpha=7)
    assert x.dtype == mg.float16 and np.array_equal(_host(x), _host(want))
    assert _host(want).tolist() == [np.float16(np.float32(np.float16(12.57))
                                               + 7 * np.float32(np.float16(np.float32(-13.210486))))]  # -79.875
    big = mg.tensor([-60000.0] * 64, dtype=mg.float16, device=device)
    big.add_(mg.tensor(40000.0, device=device), alpha=2)  # 2 * 40000 is beyond float16, the sum is not
    assert _host(big).tolist() == [20000.0] * 64  # (torch 2.13: 20000; inf for one element, its scalar loop)


@pytest.mark.parametrize("call", [
    lambda: mg.add(mg.tensor([1], dtype=mg.int32), mg.tensor([1], dtype=mg.int32), alpha=2 ** 33),
    lambda: mg.add(mg.tensor([1], dtype=mg.int8), mg.tensor([1], dtype=mg.int8), alpha=200),
    lambda: mg.add(mg.tensor([1.0]), 1.0, alpha=1e40),
    lambda: mg.tensor([1.0]).add_(mg.tensor([1.0]), alpha=1e40),
    lambda: mg.tensor([1.0]).sub_(mg.tensor([1.0]), alpha=1e40),
    lambda: mg.addcmul(*[mg.tensor([1], dtype=mg.int8)] * 3, value=300),
])
def test_a_coefficient_the_dtype_cannot_hold_is_refused(call):
    # torch 2.13: "value cannot be converted to type int without overflow" (a RuntimeError); the
    # engine had wrapped the int (2 ** 33 scaled by 1) or made the float inf
    with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow"):
        call()


def test_an_infinite_alpha_is_a_float_dtype_s_own():
    assert mg.add(mg.tensor([1.0]), mg.tensor([1.0]), alpha=float("inf")).tolist() == [np.inf]  # as torch's


_I, _M, _Z = [1, 2], [[1, 1], [1, 1]], [[0, 0], [0, 0]]
_FUSED = {  # torch 2.13's results of integer fused forms with a float (or bool) coefficient
    "addmm": (lambda **k: mg.addmm(mg.tensor(_Z), mg.tensor(_M), mg.tensor(_M), **k),
              {"alpha": [2, 2, 2, 2], "beta": [2, 2, 2, 2]}),
    "addmv": (lambda **k: mg.addmv(mg.tensor(_I), mg.tensor(_M), mg.tensor([1, 1]), **k),
              {"alpha": [3, 4], "beta": [3, 4]}),
    "baddbmm": (lambda **k: mg.baddbmm(mg.tensor([_M]), mg.tensor([_M]), mg.tensor([_M]), **k),
                {"alpha": [3, 3, 3, 3], "beta": [3, 3, 3, 3]}),
    "addbmm": (lambda **k: mg.addbmm(mg.tensor(_Z), mg.tensor([_M]), mg.tensor([_M]), **k),
               {"alpha": [2, 2, 2, 2], "beta": [2, 2, 2, 2]}),
}


@pytest.mark.parametrize("name", sorted(_FUSED))
@pytest.mark.parametrize("which", ["alpha", "beta"])
def test_an_integer_matrix_form_truncates_a_float_coefficient(name, which):
    call, want = _FUSED[name]
    got = call(**{which: 1.5})
    assert got.dtype == mg.int64 and got.flatten().tolist() == want[which]


@pytest.mark.parametrize("which", ["alpha", "beta"])
def test_an_integer_addr_refuses_a_float_or_bool_coefficient(which):
    i = mg.tensor(_I)
    with pytest.raises(RuntimeError, match=f"argument {which} must not be a floating point number"):
        mg.addr(mg.tensor(_Z), i, i, **{which: 1.5})
    with pytest.raises(RuntimeError, match=f"Boolean {which} only supported for Boolean results"):
        mg.addr(mg.tensor(_Z), i, i, **{which: True})


@pytest.mark.parametrize("device", DEVICES)
def test_scaled_operands_under_transforms_and_checkpointing(device):
    """``add(x64, y32, alpha=1/3)`` and ``addcmul`` of mixed float dtypes: the same values and
    gradients through ``mg.func.grad``, ``jvp`` and inside a checkpoint as in the plain run, the
    float32 operand's gradient and tangent in float32."""
    from minigrad_ckpt import checkpoint as ck

    x = mg.tensor([1.0, 2.0], dtype=mg.float64, device=device)
    y = mg.tensor([3.0, 4.0], dtype=mg.float32, device=device)

    def f(b):
        return (mg.add(x, b, alpha=1 / 3) * mg.addcmul(x, b, b, value=0.1)).sum()

    plain = mg.func.grad(f)(y)
    assert plain.dtype == mg.float32
    leaf = y.clone().requires_grad_()
    ck.checkpoint(f, leaf).backward()
    assert np.array_equal(_host(leaf.grad), _host(plain))
    v = mg.tensor([1.0, -1.0], dtype=mg.float32, device=device)
    out, tangent = mg.func.jvp(f, (y,), (v,))
    assert np.allclose(float(_host(tangent)), float((_host(plain).astype(np.float64) * [1.0, -1.0]).sum()),
                       rtol=1e-6)
