"""Float-valued functions of one integer or bool tensor compute in the default float dtype.

PyTorch's rule: ``torch.sqrt(uint8 tensor)`` is float32 (the default dtype), for every integer
dtype and bool.  NumPy's promotion, which the ops themselves keep, gives float16 for 8-bit
input (``exp`` of 20 overflows to inf) and float64 for int32/int64.  Integer-valued functions
(``neg``, ``square``, ``floor``, ...) keep integers integer, as PyTorch's.  The torch values
below were made offline with torch 2.13 (the expression is in each comment); torch is never
imported here.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import strict  # noqa: F401 - registers the strict stand-in devices

INTEGRAL = ("uint8", "int8", "int16", "int32", "int64", "bool")
VALUES = [0, 1, 3, 20]

# float-valued functions of one tensor, by their public spellings
FLOAT_VALUED = {
    "exp": mg.exp, "log": mg.log, "log1p": mg.log1p, "log2": mg.log2, "log10": mg.log10, "exp2": mg.exp2,
    "expm1": mg.expm1, "sqrt": mg.sqrt, "rsqrt": mg.rsqrt, "sin": mg.sin, "cos": mg.cos, "tan": mg.tan,
    "arcsin": mg.arcsin, "arccos": mg.arccos, "arctan": mg.arctan, "sinh": mg.sinh, "cosh": mg.cosh,
    "tanh": mg.tanh, "arcsinh": mg.arcsinh, "arccosh": mg.arccosh, "arctanh": mg.arctanh,
    "sigmoid": mg.sigmoid, "erf": mg.erf, "erfc": mg.erfc, "erfinv": mg.erfinv, "lgamma": mg.lgamma,
    "digamma": mg.digamma, "reciprocal": mg.reciprocal, "sinc": mg.sinc, "logit": mg.logit, "i0": mg.i0,
    "deg2rad": mg.deg2rad, "rad2deg": mg.rad2deg, "angle": mg.angle, "cbrt": mg.cbrt,
    "special.expit": mg.special.expit, "special.ndtr": mg.special.ndtr, "special.ndtri": mg.special.ndtri,
    "special.log_ndtr": mg.special.log_ndtr, "special.erfcx": mg.special.erfcx, "special.i0e": mg.special.i0e,
    "special.i0": mg.special.i0, "special.i1": mg.special.i1,
    "special.i1e": mg.special.i1e, "special.entr": mg.special.entr,
    "special.gammaln": mg.special.gammaln, "special.psi": mg.special.psi,
    "F.softsign": F.softsign, "F.tanhshrink": F.tanhshrink,
}

# torch.<name>(torch.tensor([0, 1, 3, 20])), every one float32
TORCH_VALUES = {
    "exp": [1.0, 2.7182817459106445, 20.08553695678711, 485165184.0],
    "sqrt": [0.0, 1.0, 1.7320507764816284, 4.4721360206604],
    "log1p": [0.0, 0.6931471824645996, 1.3862943649291992, 3.044522523880005],
    "sin": [0.0, 0.8414709568023682, 0.14112000167369843, 0.9129452705383301],
    "tanh": [0.0, 0.7615941762924194, 0.9950547814369202, 1.0],
    "sigmoid": [0.5, 0.7310585975646973, 0.9525741338729858, 1.0],
    "erf": [0.0, 0.8427007794380188, 0.9999778866767883, 1.0],
    "erfc": [1.0, 0.15729920566082, 2.2090496713644825e-05, 0.0],
    "reciprocal": [np.inf, 1.0, 0.3333333432674408, 0.05000000074505806],
    "sinc": [1.0, -2.7827534054836178e-08, -2.530538223410872e-09, 4.300573053228618e-08],
    "deg2rad": [0.0, 0.01745329238474369, 0.05235987901687622, 0.3490658402442932],
    "special.ndtr": [0.5, 0.8413447141647339, 0.998650074005127, 1.0],
    "special.i0": [0.9999999403953552, 1.2660659551620483, 4.880792617797852, 43558276.0],
    "special.gammaln": [np.inf, 0.0, 0.6931471824645996, 39.33988571166992],
}


def integral(dtype: str, device: str = "cpu") -> mg.Tensor:
    values = [False, True, True, False] if dtype == "bool" else VALUES
    return mg.tensor(values, dtype=getattr(mg, dtype), device=device)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dtype", INTEGRAL)
@pytest.mark.parametrize("name", sorted(FLOAT_VALUED))
def test_float_valued_function_of_integers_is_default_float(name, dtype):
    # torch.<name>(torch.tensor(..., dtype=<dtype>)).dtype is torch.float32 for each of these
    # (torch.nn.functional.tanhshrink refuses bool; we compute it)
    fn, x = FLOAT_VALUED[name], integral(dtype)
    y = fn(x)
    assert y.dtype == np.float32, (name, dtype, y.dtype)
    # computed as the function of the input cast first: bit for bit
    np.testing.assert_array_equal(y.numpy(), fn(x.astype(mg.float32)).numpy())


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("name", sorted(TORCH_VALUES))
def test_values_match_torch(name, dtype):
    y = FLOAT_VALUED[name](mg.tensor(VALUES, dtype=getattr(mg, dtype)))
    np.testing.assert_allclose(y.numpy(), np.float32(TORCH_VALUES[name]), rtol=2e-6, atol=1e-7)


def test_uint8_exp_does_not_overflow_float16():
    # torch.exp(torch.tensor([20], dtype=torch.uint8)) is tensor([4.8517e+08]) (float32); float16 was inf
    y = mg.exp(mg.tensor([20], dtype=mg.uint8))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.numpy(), np.float32([485165184.0]), rtol=2e-7)  # NumPy's exp: 1 ulp off


@pytest.mark.parametrize("dtype", INTEGRAL)
def test_tensor_methods_follow_the_functions(dtype):
    x = integral(dtype)
    for name in ("sqrt", "exp", "sin", "tanh", "sigmoid", "erf", "reciprocal", "log1p", "rsqrt", "lgamma"):
        assert getattr(x, name)().dtype == np.float32, name


@pytest.mark.parametrize("dtype", ["int8", "int64", "bool"])
@pytest.mark.parametrize("name", ["sqrt_", "exp_", "sigmoid_"])
def test_in_place_on_integers_refuses_as_torch(name, dtype):
    # torch.tensor([4, 9]).sqrt_(): RuntimeError: result type Float can't be cast to the desired
    # output type Long (Bool for torch.tensor([True]).exp_())
    x = integral(dtype)
    with pytest.raises(RuntimeError, match="can't be cast"):
        getattr(x, name)()
    np.testing.assert_array_equal(x.numpy(), integral(dtype).numpy())


def test_changed_default_dtype_is_followed():
    # torch.set_default_dtype(torch.float64); torch.sqrt(torch.tensor([2], dtype=torch.uint8)).dtype
    # is torch.float64, as torch.special.erfc(torch.tensor([2])).dtype
    old = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:
        x = mg.tensor([2], dtype=mg.uint8)
        for fn in (mg.sqrt, mg.exp, mg.special.erfc, mg.sigmoid, mg.deg2rad, mg.special.ndtr, mg.angle):
            assert fn(x).dtype == np.float64, fn
        assert x.sqrt().numpy()[0] == np.sqrt(2.0)
    finally:
        mg.set_default_dtype(old)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
def test_integer_valued_functions_keep_integers(dtype):
    # torch.neg/square/floor/ceil/trunc/round/abs of a uint8, int8 or int32 tensor keep its dtype
    x = integral(dtype)
    for fn in (mg.negative, mg.square, mg.floor, mg.ceil, mg.trunc, mg.round, mg.abs):
        assert fn(x).dtype == x.dtype, fn


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
def test_float_and_complex_input_unchanged(dtype):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 2.0, 16).astype(dtype)
    for name, ref in (("exp", np.exp), ("sqrt", np.sqrt), ("sin", np.sin), ("tanh", np.tanh), ("log1p", np.log1p)):
        y = getattr(mg, name)(mg.tensor(a))
        assert y.dtype == a.dtype
        np.testing.assert_array_equal(y.numpy(), ref(a))


def test_gradients_through_float_input_unchanged():
    x = mg.tensor([0.5, 2.0], requires_grad=True)
    (mg.sqrt(x) + mg.special.ndtr(x)).sum().backward()
    expected = 0.5 / np.sqrt(np.float32([0.5, 2.0])) + np.exp(-np.float32([0.5, 2.0]) ** 2 / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    _, tangent = mg.func.jvp(mg.exp, (x.detach(),), (mg.ones(2),))
    np.testing.assert_allclose(tangent.numpy(), np.exp(np.float32([0.5, 2.0])), rtol=1e-6)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_strict_device(device):
    x = integral("uint8", device)
    for fn in (mg.exp, mg.sqrt, mg.sigmoid, mg.special.erfc, mg.special.ndtr, mg.deg2rad):
        y = fn(x)
        assert y.dtype == np.float32 and y.device == x.device
        np.testing.assert_array_equal(y.to("cpu").numpy(), fn(integral("uint8")).numpy())


FLOAT_VALUED_PAIRS = {
    "arctan2": mg.arctan2, "hypot": mg.hypot, "logaddexp": mg.logaddexp, "logaddexp2": mg.logaddexp2,
    "special.xlogy": mg.special.xlogy, "special.xlog1py": mg.special.xlog1py,
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dtype", INTEGRAL)
@pytest.mark.parametrize("name", sorted(FLOAT_VALUED_PAIRS))
def test_float_valued_function_of_two_integral_operands(name, dtype):
    # torch.atan2 / torch.special.xlogy / xlog1py of two int tensors (any dtype, bool too) are
    # float32 (torch refuses hypot and logaddexp of integers; we compute them as atan2)
    fn, x, y = FLOAT_VALUED_PAIRS[name], integral(dtype), integral(dtype)[::-1]
    for a, b in ((x, y), (x, 2), (3, y)):
        out = fn(a, b)
        assert out.dtype == np.float32, (name, dtype, a, b)
    np.testing.assert_array_equal(fn(x, y).numpy(), fn(x.astype(mg.float32), y.astype(mg.float32)).numpy())


def test_two_uint8_operands_match_torch():
    a, b = mg.tensor([1, 2, 3], dtype=mg.uint8), mg.tensor([3, 0, 200], dtype=mg.uint8)
    # torch.atan2(a, b) and torch.special.xlogy(a, b) of those uint8 tensors (float32; NumPy's float16)
    np.testing.assert_allclose(mg.arctan2(a, b).numpy(), [0.32175055146217346, 1.5707963705062866,
                                                          0.014998874627053738], rtol=1e-6)
    np.testing.assert_allclose(mg.special.xlogy(a, b).numpy(), [1.0986123085021973, -np.inf, 15.894952774047852],
                               rtol=1e-6)


def test_binary_mixed_and_integer_valued_keep_numpy_promotion():
    i8 = mg.tensor([1, 2], dtype=mg.int8)
    assert mg.fmod(i8, i8).dtype == mg.int8 and mg.remainder(i8, 2).dtype == mg.int8  # torch: int8 too
    # a float operand beside an integer one: NumPy's promotion (torch would give float32), as documented
    assert mg.arctan2(mg.tensor([1, 2]), mg.tensor([1.5, 2.0], dtype=mg.float64)).dtype == mg.float64
    assert mg.arctan2(i8, mg.tensor([1.5, 2.0], dtype=mg.float32)).dtype == mg.float32
