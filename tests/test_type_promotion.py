"""PyTorch's type promotion for every function of two or more operands.

A program ported from PyTorch must compute in PyTorch's dtypes: ``float32 * int64`` is float32,
``x * t.sum()`` with a float32 ``x`` and a float64 ``t`` is float32, ``int_tensor * 2.5`` and
``int_tensor / 2`` are the default float dtype, ``uint8 + -3`` wraps.  NumPy 2 answers float64,
float64, float64, float64 and an ``OverflowError``.  The table below is ``torch.result_type``
itself, so every combination of dtype, 0-d or not, and Python number is checked.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]
NUMBERS = [True, 3, 2.5, 1j]
CODE = {"b": "bool", "u1": "uint8", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
        "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
        "c4": "complex64"}  # torch's complex32 (float16 beside a complex): NumPy has none, the next is complex64

# Made offline with torch 2.13: for d1 in DTYPES, k1 in (dims, 0-d) -- one row each --
# torch.result_type(a, b) for b in [each of DTYPES as a tensor with dims, then 0-d] + NUMBERS,
# a tensor with dims being torch.ones(2, dtype=...), a 0-d one torch.tensor(1, dtype=...).
TABLE = """
b b u1 u1 i1 i1 i2 i2 i4 i4 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 b i8 f4 c8
b b u1 u1 i1 i1 i2 i2 i4 i4 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 b i8 f4 c8
u1 u1 u1 u1 i2 u1 i2 u1 i4 u1 i8 u1 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 u1 u1 f4 c8
u1 u1 u1 u1 i1 i2 i2 i2 i4 i4 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 u1 u1 f4 c8
i1 i1 i2 i1 i1 i1 i2 i1 i4 i1 i8 i1 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i1 i1 f4 c8
i1 i1 u1 i2 i1 i1 i2 i2 i4 i4 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i1 i1 f4 c8
i2 i2 i2 i2 i2 i2 i2 i2 i4 i2 i8 i2 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i2 i2 f4 c8
i2 i2 u1 i2 i1 i2 i2 i2 i4 i4 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i2 i2 f4 c8
i4 i4 i4 i4 i4 i4 i4 i4 i4 i4 i8 i4 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i4 i4 f4 c8
i4 i4 u1 i4 i1 i4 i2 i4 i4 i4 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i4 i4 f4 c8
i8 i8 i8 i8 i8 i8 i8 i8 i8 i8 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i8 i8 f4 c8
i8 i8 u1 i8 i1 i8 i2 i8 i4 i8 i8 i8 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 i8 i8 f4 c8
f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f8 f2 c8 c4 c16 c4 f2 f2 f2 c4
f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f4 f8 f8 c8 c8 c16 c16 f2 f2 f2 c4
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 f4 c8 c8 c16 c8 f4 f4 f4 c8
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f2 f4 f4 f4 f8 f8 c8 c8 c16 c16 f4 f4 f4 c8
f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 c16 c16 c16 c16 f8 f8 f8 c16
f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f2 f8 f4 f8 f8 f8 c8 c16 c16 c16 f8 f8 f8 c16
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c16 c8 c8 c8 c16 c8 c8 c8 c8 c8
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c4 c8 c8 c8 c16 c16 c8 c8 c16 c16 c8 c8 c8 c8
c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16
c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c4 c16 c8 c16 c16 c16 c8 c16 c16 c16 c16 c16 c16 c16
"""


def _operand(dtype, zero_dim):
    a = np.ones((), dtype) if zero_dim else np.ones(2, dtype)
    return mg.tensor(a)


def _cases():
    rows = [r.split() for r in TABLE.strip().splitlines()]
    firsts = [(d, z) for d in DTYPES for z in (False, True)]
    seconds = [(d, z) for d in DTYPES for z in (False, True)] + NUMBERS
    for (first, row) in zip(firsts, rows):
        for second, code in zip(seconds, row):
            yield first, second, np.dtype(CODE[code])


CASES = list(_cases())


def _make(spec):
    return _operand(*spec) if isinstance(spec, tuple) else spec


def _name(spec):
    return f"{spec[0]}{'-0d' if spec[1] else ''}" if isinstance(spec, tuple) else repr(spec)


def test_result_type_is_pytorchs_for_every_pair():
    wrong = [(_name(a), _name(b), str(mg.result_type(_make(a), _make(b))), str(want))
             for a, b, want in CASES if mg.result_type(_make(a), _make(b)) != want]
    assert not wrong, wrong[:10]
    assert len(CASES) == 22 * 26


def _arith_cases():
    for a, b, want in CASES:
        if want.kind == "b" or a[0] == "float16" and want.kind == "c":
            continue  # bool arithmetic is logic, and float16 beside complex has no NumPy complex32
        yield a, b, want


def _is_bool(v):
    return isinstance(v, bool) or (isinstance(v, mg.Tensor) and v.dtype == mg.bool_)


@pytest.mark.parametrize("name, fn", [
    ("add", lambda x, y: x + y), ("radd", lambda x, y: y + x), ("mul", mg.multiply),
    ("sub", lambda x, y: x - y), ("where", lambda x, y: mg.where(mg.tensor(True), x, y)),
    ("pow", lambda x, y: x ** y),
])
def test_arithmetic_computes_in_the_result_type(name, fn):
    wrong = []
    for a, b, want in _arith_cases():
        if name == "pow" and want.kind in "iu":
            continue  # (an integer to an integer power: checked below without negative exponents)
        if name == "sub" and any(_is_bool(_make(v)) for v in (a, b)):
            with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):  # torch 2.13
                fn(_make(a), _make(b))
            continue
        got = fn(_make(a), _make(b)).dtype
        if got != want:
            wrong.append((_name(a), _name(b), str(got), str(want)))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("fn", [mg.maximum, mg.fmod, mg.remainder, lambda x, y: x // y, mg.minimum])
def test_real_binary_functions_compute_in_the_result_type(fn):
    wrong = []
    for a, b, want in _arith_cases():
        if want.kind == "c" or not isinstance(b, tuple):
            continue
        got = fn(_make(a), _make(b)).dtype
        if got != want:
            wrong.append((_name(a), _name(b), str(got), str(want)))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("fn", [lambda x, y: x / y, mg.divide, mg.arctan2, mg.hypot, mg.special.xlogy])
def test_float_valued_functions_of_two_integral_operands_are_in_the_default_float_dtype(fn):
    for a, b, want in _arith_cases():
        if want.kind == "c" or (fn is not mg.divide and not isinstance(b, tuple)):
            continue
        if fn in (mg.arctan2, mg.hypot) and "c" in (a[0][0], str(b)[0]):
            continue
        expected = mg.get_default_dtype() if want.kind in "biu" else want
        got = fn(_make(a), _make(b)).dtype
        assert got == expected, (_name(a), _name(b), got, expected)


def test_the_values_are_pytorchs():
    # torch: torch.tensor([1, 2]) / torch.tensor([2, 2]) -> [0.5, 1.0] float32; torch.tensor([1, 2]) * 2.5 ->
    # [2.5, 5.0] float32; torch.tensor([0.1]) == torch.tensor(0.1, dtype=torch.float64) -> [True] (compared in float32)
    q = mg.tensor([1, 2]) / mg.tensor([2, 2])
    assert q.dtype == mg.float32 and q.tolist() == [0.5, 1.0]
    assert (mg.tensor([1, 2]) * 2.5).tolist() == [2.5, 5.0]
    assert (mg.tensor([0.1]) == mg.tensor(0.1, dtype=mg.float64)).tolist() == [True]
    assert (mg.tensor([0.1]) < mg.tensor(0.1, dtype=mg.float64)).tolist() == [False]
    # torch.tensor([5, 200], dtype=torch.uint8) / -3 -> [-1.6667, -66.6667]: the divisor is not wrapped
    assert np.allclose((mg.tensor([5, 200], dtype=mg.uint8) / -3).numpy(), [-5 / 3, -200 / 3])


def test_a_python_int_wraps_into_an_integer_tensors_range_as_pytorchs():
    # torch 2.13: u = torch.tensor([5, 200], dtype=torch.uint8): u + 300 -> [49, 244], u + (-3) -> [2, 197],
    # u * 1000 -> [136, 64]; i8 = torch.tensor([5, 100], dtype=torch.int8): i8 + 200 -> [-51, 44];
    # u + 2**64 -> OverflowError; u >= -3 compares with 253 -> [False, False]
    u = mg.tensor([5, 200], dtype=mg.uint8)
    assert (u + 300).tolist() == [49, 244] and (u + 300).dtype == mg.uint8
    assert (u + -3).tolist() == [2, 197] and (-3 + u).tolist() == [2, 197]
    assert (u * 1000).tolist() == [136, 64]
    assert (mg.tensor([5, 100], dtype=mg.int8) + 200).tolist() == [-51, 44]
    assert (u >= -3).tolist() == [False, False]
    assert (u & -3).tolist() == [5 & 253, 200 & 253]
    with pytest.raises(OverflowError):
        u + 2 ** 64
    v = u.clone()
    v += 300
    assert v.tolist() == [49, 244]
    # torch 2.13: torch.clamp(u, min=-3) -> [253, 253] (uint8 takes a negative bound down to -255, wrapped);
    # torch.clamp(u, min=-256) -> "value cannot be converted to type uint8_t without overflow"
    assert mg.clamp(u, min=-3).tolist() == [253, 253]
    with pytest.raises(OverflowError):
        mg.clamp(u, min=-256)


def test_joins_and_bounds_are_promoted():
    # torch: torch.cat([torch.tensor([1, 2]), torch.tensor([1.5])]) -> float32; torch.clamp(float32,
    # min=torch.tensor(1.5, dtype=torch.float64)) -> float32; torch.clamp(torch.tensor([1, 2]), min=0.5) -> float32
    i, f = mg.tensor([1, 2]), mg.tensor([1.5, 2.5])
    assert mg.cat([i, f]).dtype == mg.float32 and mg.cat([i, f]).tolist() == [1, 2, 1.5, 2.5]
    assert mg.stack([i, f]).dtype == mg.float32
    assert mg.clamp(f, min=mg.tensor(2.0, dtype=mg.float64)).dtype == mg.float32
    assert mg.clamp(i, min=0.5).dtype == mg.float32
    c = mg.tensor([True, False])
    assert mg.where(c, 1.0, 0).dtype == mg.float32 and mg.where(c, 1, 0).dtype == mg.int64


def test_in_place_writes_keep_the_tensors_dtype():
    x = mg.tensor([1.0, 2.0])
    x += mg.tensor(0.1, dtype=mg.float64)
    assert x.dtype == mg.float32 and np.allclose(x.numpy(), [1.1, 2.1])
    x *= mg.tensor([3, 4])
    assert x.dtype == mg.float32
    i = mg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i += mg.tensor(1.5)


def test_gradients_flow_back_in_each_operands_dtype():
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = mg.tensor(0.5, dtype=mg.float64, requires_grad=True)
    y = w * s * mg.tensor([1, 2, 3])
    assert y.dtype == mg.float32
    y.sum().backward()
    assert w.grad.dtype == mg.float32 and s.grad.dtype == mg.float64
    assert w.grad.tolist() == [0.5, 1.0, 1.5] and s.grad.item() == pytest.approx(14.0)
    # second derivative through the recorded cast
    s2 = mg.tensor(3.0, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad((w.detach() * s2 * s2).sum(), [s2], create_graph=True)
    (h,) = mg.autograd.grad(g, [s2])
    assert g.dtype == mg.float64 and h.item() == pytest.approx(12.0)


def test_forward_mode_tangents_are_in_the_result_dtype():
    s = mg.tensor(2.0, dtype=mg.float64)
    w = mg.tensor([1.0, 2.0])
    out, tangent = mg.func.jvp(lambda w: w * s + mg.tensor([1, 1]), (w,), (mg.ones(2),))
    assert out.dtype == tangent.dtype == mg.float32 and tangent.tolist() == [2.0, 2.0]
    _, t2 = mg.func.jvp(lambda s: w * s, (s,), (mg.tensor(1.0, dtype=mg.float64),))
    assert t2.dtype == mg.float32 and t2.tolist() == [1.0, 2.0]


def test_checkpointed_mixed_dtypes_match_the_plain_step_bitwise():
    scale = mg.tensor(0.3, dtype=mg.float64, requires_grad=True)
    counts = mg.tensor([[1, 2, 3]])

    def block(x):
        return mg.tanh(x * scale + counts) / 2

    grads = []
    for wrap in (False, True):
        x = mg.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        y = mg.checkpoint.checkpoint(block, x) if wrap else block(x)
        assert y.dtype == mg.float32
        y.sum().backward()
        grads.append((x.grad.numpy().copy(), scale.grad.numpy().copy()))
        scale.grad = None
    assert all(np.array_equal(a, b) for a, b in zip(*grads))


def test_the_default_dtype_decides_what_a_python_float_makes_of_an_integer_tensor():
    mg.set_default_dtype("float64")
    try:
        assert (mg.tensor([1, 2]) * 2.5).dtype == mg.float64
        assert (mg.tensor([1, 2]) / 2).dtype == mg.float64
        assert (mg.tensor([1, 2]) * 1j).dtype == mg.complex128
    finally:
        mg.set_default_dtype("float32")
    assert (mg.tensor([1, 2]) * 1j).dtype == mg.complex64  # torch: complex64 (NumPy: complex128)


def test_promote_types_and_can_cast_are_pytorchs():
    # torch.promote_types(torch.int64, torch.float16) -> float16; torch.can_cast(torch.float64, torch.int32) -> False
    assert mg.promote_types(mg.int64, mg.float16) == mg.float16
    assert mg.promote_types("uint8", "int8") == mg.int16
    assert mg.promote_types(mg.float64, mg.complex64) == mg.complex128
    assert not mg.can_cast(mg.float64, mg.int32) and mg.can_cast(mg.float64, mg.float32)
    assert mg.can_cast(mg.uint8, mg.int8) and not mg.can_cast(mg.int64, mg.bool)
    assert not mg.can_cast(mg.complex64, mg.float64)


def test_promotion_on_the_strict_device():
    x = mg.ones(3, device="strict")
    i = mg.tensor([1, 2, 3], device="strict")
    y = x * i + mg.tensor(0.5, dtype=mg.float64, device="strict")
    assert y.dtype == mg.float32 and str(y.device) == "strict:0"
    assert (i / 2).dtype == mg.float32


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64"])
def test_integer_sums_and_products_are_int64_as_pytorchs(dtype):
    # torch: torch.tensor([1, 2], dtype=torch.uint8).sum() / .prod() / .cumsum(0) / .cumprod(0) are int64
    # (NumPy: uint64 for the unsigned ones)
    x = mg.tensor(np.array([200, 100]).astype(dtype))
    for r in (x.sum(), x.prod(), x.cumsum(0), x.cumprod(0), mg.nansum(x) if dtype != "bool" else x.sum()):
        assert r.dtype == mg.int64, (dtype, r.dtype)
    if dtype == "uint8":
        assert x.sum().item() == 300 and x.sum(dtype=mg.uint8).item() == 44


def test_integer_and_bool_inputs_keep_their_dtype_where_pytorchs_do():
    # torch: torch.sign(torch.tensor([True, False])) -> tensor([True, False]);
    # F.relu6(torch.tensor([-3, 0, 8])) -> tensor([0, 0, 6]); F.hardtanh(torch.tensor([-3, 0, 8])) -> [-1, 0, 1]
    s = mg.sign(mg.tensor([True, False]))
    assert s.dtype == mg.bool and s.tolist() == [True, False]
    F = mg.nn.functional
    r = F.relu6(mg.tensor([-3, 0, 8]))
    assert r.dtype == mg.int64 and r.tolist() == [0, 0, 6]
    assert F.hardtanh(mg.tensor([-3, 0, 8])).tolist() == [-1, 0, 1]


def test_attention_refuses_a_mask_that_would_change_its_dtype():
    # torch: F.scaled_dot_product_attention(q32, q32, q32, attn_mask=torch.zeros(4, 4, dtype=torch.float64))
    # -> RuntimeError "Expected attn_mask dtype to be bool or float or to match query dtype ..."
    F = mg.nn.functional
    q = mg.randn(1, 2, 4, 8)
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mg.zeros(4, 4, dtype=mg.float64))
    out = F.scaled_dot_product_attention(q, q, q, attn_mask=mg.zeros(4, 4))
    assert out.dtype == mg.float32
    assert F.scaled_dot_product_attention(q, q, q, attn_mask=mg.ones(4, 4, dtype=mg.bool)).dtype == mg.float32


def test_default_collate_stacks_mixed_dtypes_as_pytorchs():
    # torch 2.13: default_collate([np.ones(2, np.int32), np.ones(2, np.float32)]).dtype -> float32;
    # default_collate([torch.ones(2, dtype=torch.int64), torch.ones(2)]).dtype -> float32
    from minigrad_ckpt.utils.data import default_collate

    assert default_collate([np.ones(2, np.int32), np.ones(2, np.float32)]).dtype == mg.float32
    assert default_collate([np.ones(2, np.uint8), np.ones(2, np.int8)]).dtype == mg.int16
    assert default_collate([mg.ones(2, dtype=mg.int64), mg.ones(2)]).dtype == mg.float32


def test_copysign_computes_in_pytorchs_dtype():
    # torch: copysign(int64, int64) -> float32; copysign(float32, float64 dims) -> float64;
    # copysign(int64, 0-d float64) -> float64; copysign(int16, -1) -> float32
    assert mg.copysign(mg.tensor([1, 2, -3]), mg.tensor([1, -2, 3])).dtype == mg.float32
    assert mg.copysign(mg.tensor([1.0, 2.0]), mg.tensor([-1.0, 2.0], dtype=mg.float64)).dtype == mg.float64
    assert mg.copysign(mg.tensor([1, 2]), mg.tensor(-2.0, dtype=mg.float64)).tolist() == [-1.0, -2.0]
    assert mg.copysign(mg.tensor([1, 2], dtype=mg.int16), -1).dtype == mg.float32


def test_reverse_transforms_of_closures_over_other_dtypes():
    # a function closing over a 0-d float64 scale and an int64 tensor: the gradient of a float32 argument
    # is float32 (torch.func.grad gives float32 [0.5, 1.0, 1.5] * 2 for w = [1, 2, 3])
    scale = mg.tensor(0.5, dtype=mg.float64, requires_grad=True)
    counts = mg.tensor([1, 2, 3])
    w = mg.tensor([1.0, 2.0, 3.0])

    def f(w):
        y = w * scale / counts
        y *= counts  # in place, on the tape, dtype kept
        return (y * y).sum()

    g = mg.func.grad(f)(w)
    assert g.dtype == mg.float32 and g.tolist() == [0.5, 1.0, 1.5]
    per_example = mg.func.vmap(mg.func.grad(f))(mg.stack([w, 2 * w]))
    assert per_example.dtype == mg.float32 and per_example.tolist() == [[0.5, 1.0, 1.5], [1.0, 2.0, 3.0]]
