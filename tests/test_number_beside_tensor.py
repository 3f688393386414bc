"""A tensor beside a number, computed where PyTorch computes it.

* A float16 tensor times or by a number (``x * 1.3``, ``x / 65536.0``, ``x // 0.1``, ``x.mul_(s)``,
  ``x * mg.tensor(1e5)``): PyTorch's half kernels take the product in float32 ("opmath") with the
  number as it is and round once; NumPy rounded the number to float16 first -- ``x / 65536.0`` was 0,
  ``x * 70000`` inf, and ``x * 0.1`` a last bit off in a third of the values.  The gradient and the
  tangent the same way (``g * 1.3`` in float32, rounded once).  A 0-d tensor as the *first* operand is
  rounded to float16, as PyTorch's.
* The gradient of ``x / s``: ``g / s``, PyTorch's, where ``g * (1 / s)`` was a last bit off for a
  third of the values, float32 and float64 alike.
* ``xlogy(x, s)`` / ``xlog1py(x, s)``: the log of ``s`` rounded to ``x``'s dtype, taken in double
  precision and rounded once (float32: ``x * float32(log(float32(1.3)))``), where the log of the
  Python number itself was a last bit off in nearly every float32 value.

Each expected value below is the formula torch 2.13 was found to compute, bitwise, on 20,000
random values per case (checked offline; the formulas are what these tests state).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F16, F32 = np.float16, np.float32
NUMBERS = [1.3, 0.1, -2.2, 3, 7.77e-5, 65536.0, 70000, 1e5]


def draw(n=4000, seed=0, dtype=F16):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.standard_normal(n // 2) * 100, rng.standard_normal(n // 2) * 1e-3])
    return x.astype(dtype)


def rounded(wide):
    with np.errstate(over="ignore"):
        return wide.astype(F16)


def bits_equal(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    same = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), f"{what}: {np.count_nonzero(~same)} of {got.size} differ; first at {np.argmin(same)}"


def half_products(s):
    """Each way of writing ``x * s`` and ``x / s`` and its float32 formula."""
    return [
        ("x * s", lambda x: x * s, np.multiply),
        ("s * x", lambda x: s * x, np.multiply),
        ("x.mul(s)", lambda x: x.mul(s), np.multiply),
        ("mg.mul(x, s)", lambda x: mg.mul(x, s), np.multiply),
        ("x / s", lambda x: x / s, np.divide),
        ("x.div(s)", lambda x: x.div(s), np.divide),
        ("mg.true_divide(x, s)", lambda x: mg.true_divide(x, s), np.divide),
        ("x * 0-d float32", lambda x: x * mg.tensor(s, dtype=mg.float32, device=x.device), np.multiply),
        ("x / 0-d float64", lambda x: x / mg.tensor(s, dtype=mg.float64, device=x.device), np.divide),
    ]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("s", NUMBERS)
def test_float16_times_and_by_a_number_in_float32(s, device):
    a, g = draw(seed=1), draw(seed=2)
    for what, f, ufunc in half_products(s):
        x = mg.tensor(a, device=device, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (65536.0 rounded to float16 warned of an overflow)
            y = f(x)
            y.backward(mg.tensor(g, device=device))
        assert y.dtype == mg.float16, what
        bits_equal(y.detach().cpu().numpy(), rounded(ufunc(a.astype(F32), F32(s))), what)
        bits_equal(x.grad.cpu().numpy(), rounded(ufunc(g.astype(F32), F32(s))), what)
        _, tangent = mg.func.jvp(f, (mg.tensor(a, device=device),), (mg.tensor(g, device=device),))
        bits_equal(tangent.cpu().numpy(), rounded(ufunc(g.astype(F32), F32(s))), what)


@pytest.mark.parametrize("s", [1.3, 0.1, 65536.0, 70000])
def test_float16_written_in_place_by_a_number_in_float32(s):
    a, g = draw(seed=3), draw(seed=4)
    for what, write, ufunc in [("mul_", lambda t: t.mul_(s), np.multiply), ("div_", lambda t: t.div_(s), np.divide),
                               ("*=", lambda t: t.__imul__(s), np.multiply),
                               ("mul_ 0-d", lambda t: t.mul_(mg.tensor(s)), np.multiply)]:
        want = rounded(ufunc(a.astype(F32), F32(s)))
        t = mg.tensor(a)
        write(t)  # untracked
        bits_equal(t.numpy(), want, what)
        x = mg.tensor(a, requires_grad=True)
        y = x.clone()
        write(y)  # on the tape
        bits_equal(y.detach().numpy(), want, what)
        y.backward(mg.tensor(g))
        bits_equal(x.grad.numpy(), rounded(ufunc(g.astype(F32), F32(s))), what)

        def f(v, write=write):
            v = v.clone()
            write(v)
            return v
        _, tangent = mg.func.jvp(f, (mg.tensor(a),), (mg.tensor(g),))
        bits_equal(tangent.numpy(), rounded(ufunc(g.astype(F32), F32(s))), what)


@pytest.mark.parametrize("s", [1.3, 0.1, -2.2, 7.77e-5])
def test_float16_rounded_divisions_in_float32(s):
    a = draw(seed=5)
    x = mg.tensor(a)
    wide = a.astype(F32) / F32(s)
    bits_equal((x // s).numpy(), rounded(np.floor_divide(a.astype(F32), F32(s))))
    bits_equal(mg.div(x, s, rounding_mode="floor").numpy(), rounded(np.floor_divide(a.astype(F32), F32(s))))
    bits_equal(mg.div(x, s, rounding_mode="trunc").numpy(), rounded(np.trunc(wide)))
    bits_equal((s / x).numpy(), rounded(rounded(1 / a.astype(F32)).astype(F32) * F32(s)))  # reciprocal(x) * s


def test_a_first_operand_and_float16_pairs_round_to_float16():
    a = draw(seed=6)
    x = mg.tensor(a)
    s16 = F16(1.3)
    # a 0-d tensor first is rounded to the tensor's dtype (PyTorch reads only a second operand as a number)
    bits_equal((mg.tensor(1.3) * x).numpy(), a * s16)
    with np.errstate(over="ignore"):
        bits_equal((mg.tensor(1.3) / x).numpy(), s16 / a)
    bits_equal((mg.tensor(1.3) // x).numpy(), (mg.tensor(np.full_like(a, s16)) // x).numpy())
    bits_equal((x * mg.tensor(1.3, dtype=mg.float16)).numpy(), a * s16)  # float16 beside float16
    assert (mg.tensor(F16(2.0)) * mg.tensor(1.3)).dtype == mg.float32  # two 0-d floats promote
    small = mg.tensor(F16(1e-4))  # beside a 0-d integer tensor (a number to PyTorch) a 0-d one too
    bits_equal((small * mg.tensor(70000)).numpy(), rounded(np.float32(F16(1e-4)) * F32(70000)))
    assert (x + 1.3).dtype == mg.float16 and (x - 3).dtype == mg.float16  # (sums: unchanged)


def test_inside_a_checkpoint():
    a, g = draw(seed=7), draw(seed=8)

    def f(v):
        return (v * 1.3) / 65536.0 * 70000

    x = mg.tensor(a, requires_grad=True)
    mg.checkpoint.checkpoint(f, x).backward(mg.tensor(g))
    y = mg.tensor(a, requires_grad=True)
    f(y).backward(mg.tensor(g))
    bits_equal(x.grad.numpy(), y.grad.numpy())
    step = rounded(rounded(a.astype(F32) * F32(1.3)).astype(F32) / F32(65536.0))
    bits_equal(f(mg.tensor(a)).numpy(), rounded(step.astype(F32) * F32(70000)))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("s", [3.0, 1.3, 0.1, 7.0, -2.5, 1e-300])
def test_gradient_by_a_number_is_g_over_it(s, dtype):
    a = draw(dtype=np.float64, seed=9)
    g = draw(dtype=np.float64, seed=10)
    np_dtype = np.dtype(str(dtype).replace("mg.", ""))
    a, g = a.astype(np_dtype), g.astype(np_dtype)
    x = mg.tensor(a, requires_grad=True)
    (x / s).backward(mg.tensor(g))
    with np.errstate(all="ignore"):
        want = g / np_dtype.type(s) if np_dtype == np.float32 else g / s
    np.testing.assert_array_equal(x.grad.numpy(), want)
    _, tangent = mg.func.jvp(lambda v: v / s, (mg.tensor(a),), (mg.tensor(g),))
    np.testing.assert_array_equal(tangent.numpy(), want)


def test_gradient_by_zero_keeps_the_sign_and_the_singular_rule():
    x = mg.tensor([1.0, -1.0, 2.0], requires_grad=True)
    (x / -0.0).backward(mg.tensor([1.0, 1.0, 0.0]))
    assert x.grad.numpy()[0] == -math.inf and x.grad.numpy()[1] == -math.inf
    assert x.grad.numpy()[2] == 0  # a zero gradient stays 0 at the singular point (docs: times_local)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("s", [1.3, 0.1, 7.77, 3, 1e5])
def test_xlogy_of_a_number_takes_its_log_in_the_tensors_dtype(s, dtype):
    a = draw(dtype=dtype, seed=11)
    a[:3] = 0
    with np.errstate(over="ignore"):
        s_in_dtype = float(dtype(s))
    for name, log in [("xlogy", math.log), ("xlog1py", math.log1p)]:
        x = mg.tensor(a, requires_grad=True)
        y = getattr(mg.special, name)(x, s)
        y.backward(mg.ones_like(y))
        with np.errstate(over="ignore", invalid="ignore"):
            logged = log(s_in_dtype) if s_in_dtype != math.inf else math.inf
            want = np.where(a == 0, 0, a * logged).astype(dtype)  # (a Python float: weak, rounded once)
            d_want = np.full(a.shape, logged).astype(dtype)
        np.testing.assert_array_equal(y.detach().numpy(), want)
        np.testing.assert_array_equal(x.grad.numpy(), d_want)


ONE_ELEMENT_INTEGERS = [("(1,) int64", lambda d: mg.tensor([70000], device=d)),
                        ("(1, 1) int32", lambda d: mg.tensor([[65536]], dtype=mg.int32, device=d)),
                        ("0-d int64", lambda d: mg.tensor(70000, device=d))]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("what, integer", ONE_ELEMENT_INTEGERS)
def test_an_integer_tensor_of_one_element_is_a_number_beside_float16(what, integer, device):
    # PyTorch's half kernels read any second operand of one element as a number (in float32, as it is):
    # x * mg.tensor([70000]) was x times 70000 rounded to float16 (inf), where PyTorch's is x * 70000;
    # the same written in place, on the tape and off it, in forward mode, and for a 0-d float16 x
    small, g = draw(seed=12) * F16(1e-2), draw(seed=13)
    n = int(integer("cpu").numpy().reshape(-1)[0])
    for a in (small, small[:1].reshape(())):
        shape = np.broadcast_shapes(a.shape, integer("cpu").shape)
        for name, f, ufunc in [("*", lambda x: x * integer(device), np.multiply),
                               ("/", lambda x: x / integer(device), np.divide),
                               ("mul_", lambda x: x.clone().mul_(integer(device)), np.multiply),
                               ("div_", lambda x: x.clone().div_(integer(device)), np.divide)]:
            if name.endswith("_") and shape != a.shape:
                continue  # (an in-place write keeps its shape: PyTorch refuses a wider operand)
            want = rounded(ufunc(a.astype(F32), F32(n))).reshape(shape)
            bits_equal(f(mg.tensor(a, device=device)).cpu().numpy(), want, f"{name} {what}")
            x = mg.tensor(a, device=device, requires_grad=True)
            y = f(x)
            y.backward(mg.tensor(g[:y.numel()].reshape(shape), device=device))
            bits_equal(y.detach().cpu().numpy(), want, f"{name} {what} on the tape")
            if shape == a.shape:  # (a wider result: its gradient is summed, another rounding)
                d_want = rounded(ufunc(g[:a.size].astype(F32), F32(n))).reshape(a.shape)
                bits_equal(x.grad.cpu().numpy(), d_want, f"{name} {what} gradient")
                _, tangent = mg.func.jvp(f, (mg.tensor(a, device=device),),
                                         (mg.tensor(g[:a.size].reshape(a.shape), device=device),))
                bits_equal(tangent.cpu().numpy(), d_want, f"{name} {what} tangent")
        if integer("cpu").ndim <= a.ndim:
            t = mg.tensor(a, device=device)  # untracked, in place
            t.mul_(integer(device))
            bits_equal(t.cpu().numpy(), rounded(a.astype(F32) * F32(n)), f"untracked mul_ {what}")


def test_an_integer_tensor_of_several_elements_is_rounded_to_float16():
    # only a single element is a number: PyTorch rounds an expanded one (a copy in float16 first) too
    a = draw(seed=14) * F16(1e-2)
    with np.errstate(over="ignore"):
        bits_equal((mg.tensor(a) * mg.tensor([70000]).expand(a.size)).numpy(), a * F16(70000))
        bits_equal((mg.tensor(a) * mg.tensor(np.full(a.size, 70000))).numpy(), a * F16(70000))


def test_a_float16_product_is_one_node_named_as_pytorchs():
    # recorded as one op (MulInFloat32, DivInFloat32), PyTorch's MulBackward0 / DivBackward0 pointing at the
    # leaf -- not a cast, a product and a cast back; double backward goes through it
    x = mg.tensor(draw(n=8, seed=12), requires_grad=True)
    for y, name in [(x * 1.3, "MulBackward0"), (1.3 * x, "MulBackward0"), (x / 65536.0, "DivBackward0"),
                    (x.mul(np.float64(0.1)), "MulBackward0"), (x.div(3), "DivBackward0")]:
        assert y.grad_fn.name() == name
        assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    (g,) = mg.autograd.grad((x * 1.3 * x).sum(), [x], create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), [x])  # d/dx (2.6 x) = 2.6, in float16
    assert gg.dtype == mg.float16
    np.testing.assert_allclose(gg.numpy().astype(np.float64), 2.6, rtol=2e-3)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("write", ["mul_", "div_", "__imul__", "__itruediv__"])
def test_a_complex_number_written_into_float16_is_refused_as_into_float32(write, device):
    # torch 2.13: RuntimeError "result type ComplexHalf can't be cast to the desired output type Half";
    # the float32 check of a number beside float16 read the Python complex's dtype (AttributeError)
    for dtype in (mg.float16, mg.float32):
        t = mg.ones(3, dtype=dtype, device=device)
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            getattr(t, write)(1j)
        assert t.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_under_transforms_closing_over_the_number(device):
    # vmap and grad of a function that closes over the number (a Python float, a 0-d float32 tensor):
    # each example, and the gradient, as the plain call computes them
    a, g = draw(n=40, seed=13).reshape(4, 10), draw(n=40, seed=14).reshape(4, 10)
    for scale in (1.3, mg.tensor(1.3, device=device)):
        rows = mg.func.vmap(lambda r, scale=scale: r * scale / 65536.0)(mg.tensor(a, device=device))
        bits_equal(rows.cpu().numpy(), np.stack([(mg.tensor(r, device=device) * scale / 65536.0).cpu().numpy()
                                                  for r in a]))
        grad = mg.func.grad(lambda v, scale=scale: ((v * scale) * mg.tensor(g, device=device)).sum())
        got = grad(mg.tensor(a, device=device))
        assert got.dtype == mg.float16
        bits_equal(got.cpu().numpy(), rounded(g.astype(F32) * F32(1.3)))
