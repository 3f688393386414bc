"""``mg.gcd``, ``mg.lcm``, ``mg.bitwise_left_shift``/``bitwise_right_shift`` (``<<``, ``>>``,
``<<=``, ``>>=``) and ``mg.frexp`` with PyTorch's answers (each an AttributeError before).

Expected values: torch 2.13 on the same calls, stored by ``tests/data/make_torch_integer_math.py``
(``torch.gcd(tensor([-4], dtype=int32), tensor([6], dtype=int32))`` is ``[2]``, ...).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = json.loads(Path(__file__).with_name("data").joinpath("torch_integer_math.json").read_text())
TORCH = DATA["integer"]
DEVICES = ["cpu", "strict", "strict-f32"]


def check(got: mg.Tensor, name: str) -> None:
    want = TORCH[name]
    assert str(got.dtype) == want["dtype"], name
    assert got.tolist() == want["values"], name


@pytest.mark.parametrize("device", DEVICES)
def test_gcd_and_lcm_as_pytorch(device):
    a = mg.tensor(DATA["A"], dtype=mg.int32, device=device)
    b = mg.tensor(DATA["B"], dtype=mg.int32, device=device)
    check(mg.gcd(a, b), "gcd")
    check(a.lcm(b), "lcm")
    check(mg.gcd(a.reshape(2, 4), mg.tensor([[6], [4]], dtype=mg.int32, device=device)), "gcd_broadcast")
    u8 = mg.tensor([1, 5, 200, 255], dtype=mg.uint8, device=device)
    check(mg.gcd(u8, mg.tensor([6, -9, 4, 3], dtype=mg.int8, device=device)), "gcd_promoted")
    check(mg.lcm(mg.tensor([2 ** 40], device=device), mg.tensor([3 ** 20], device=device)), "lcm_wraps")
    c = a.clone()
    assert c.gcd_(b) is c
    check(c, "gcd")
    c = a.clone()
    c.lcm_(b)
    check(c, "lcm")


@pytest.mark.parametrize("device", DEVICES)
def test_shifts_as_pytorch(device):
    x = mg.tensor(DATA["SHIFTED"], dtype=mg.int32, device=device)
    s = mg.tensor(DATA["BY"], dtype=mg.int32, device=device)
    check(x << s, "left")
    check(mg.bitwise_right_shift(x, s), "right")
    check(x.bitwise_left_shift(3), "left_int")
    check(x >> 33, "right_int")
    check(3 << s, "int_left")
    check(-1024 >> s, "int_right")
    i8 = mg.tensor(DATA["INT8"], dtype=mg.int8, device=device)
    check(i8 << 1, "int8_left")
    check(i8 >> 9, "int8_right")
    u8 = mg.tensor([1, 5, 200, 255], dtype=mg.uint8, device=device)
    check(u8 << 257, "uint8_left_wrapped")  # the Python int wraps into uint8: a shift by 1
    check(u8 >> 3, "uint8_right")
    check(u8 << mg.tensor([1, 2, 3, 4], dtype=mg.int32, device=device), "uint8_left_int32")
    check(mg.tensor([True, False], device=device) << 2, "bool_left")
    y = x.clone()
    alias = y
    y <<= s
    assert y is alias
    check(y, "left")
    y = x.clone()
    y >>= s
    check(y, "right")
    y = x.clone()
    assert y.bitwise_right_shift_(s) is y
    check(y, "right")


@pytest.mark.parametrize("fn", [mg.gcd, mg.lcm, mg.bitwise_left_shift, mg.bitwise_right_shift])
def test_integer_only_functions_refuse_floats_and_bool_pairs(fn):
    # torch 2.13: NotImplementedError "gcd_cpu" not implemented for 'Float' (and for 'Bool');
    # here a TypeError, as mg.bitwise_and's
    with pytest.raises(TypeError, match="only integer tensors"):
        fn(mg.tensor([1.0]), mg.tensor([2.0]))
    with pytest.raises(TypeError, match="only integer tensors"):
        fn(mg.tensor([True]), mg.tensor([True]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_as_pytorch(device, dtype):
    want = DATA["frexp"][dtype]
    if device == "strict-f32" and dtype == "float64":
        pytest.skip("strict-f32 has no float64")
    x = mg.tensor(np.array(want["input"], dtype=dtype), device=device)
    mantissa, exponent = mg.frexp(x)
    assert str(mantissa.dtype) == dtype and exponent.dtype == mg.int32
    got = mantissa.numpy()
    np.testing.assert_array_equal(got, np.array(want["mantissa"]["values"], dtype=dtype))
    assert np.array_equal(np.signbit(got), np.signbit(np.array(want["mantissa"]["values"], dtype=dtype)))
    assert exponent.tolist() == want["exponent"]["values"]
    assert x.frexp().exponent.tolist() == want["exponent"]["values"]
    # PyTorch's gradient of the mantissa is 2 ** -exponent; the exponent carries none
    leaf = mg.tensor(np.array(want["grad_input"], dtype=dtype), device=device, requires_grad=True)
    result = mg.frexp(leaf)
    assert not result.exponent.requires_grad
    (grad,) = mg.autograd.grad(result.mantissa.sum(), leaf)
    np.testing.assert_array_equal(grad.numpy(), np.array(want["grad"], dtype=dtype))


def test_frexp_refuses_integers_and_composes_with_transforms():
    # torch 2.13: RuntimeError "torch.frexp() only supports floating-point dtypes"
    with pytest.raises(TypeError, match="floating-point"):
        mg.frexp(mg.tensor([8]))
    x = mg.tensor([[8.0, 3.0], [0.75, -5.0]], dtype=mg.float32)
    out = mg.func.vmap(lambda row: mg.frexp(row).mantissa)(x)
    assert out.tolist() == [[0.5, 0.75], [0.75, -0.625]]
    g = mg.func.grad(lambda v: mg.frexp(v).mantissa.sum())(x)
    assert g.tolist() == [[0.0625, 0.25], [1.0, 0.125]]
