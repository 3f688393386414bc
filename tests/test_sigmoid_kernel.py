"""The sigmoid kernel is PyTorch's formula ``1 / (1 + exp(-x))`` computed in place in one array, with
``exp``'s overflow (below about -709 in float64, -88.7 in float32) silenced, not avoided: check it is that
formula bit for bit, at the values where an in-place or overflow-avoiding version could part from it --
signed zeros, infinities, NaN, under- and overflow -- on the CPU and on the strict stand-in devices, in
float64 and float32, that no warning escapes, and that it is as accurate as the overflow-free form
``maximum(exp(-|x|), x >= 0) / (1 + exp(-|x|))`` it replaced."""

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" devices)

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 745.0, -745.0, 800.0, -800.0, 36.7, -36.7,
           88.7, -88.7, 104.0, -104.0, 1.0, -1.0, 0.5, -0.5]


def stable(x):
    with np.errstate(over="ignore"):
        return x.dtype.type(1) / (1 + np.exp(-x))


def overflow_free(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, e.dtype.type(1), e) / (1 + e)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sigmoid_is_the_stable_formula_bit_for_bit(device, dtype):
    if device == "strict-f32" and dtype == "float64":
        pytest.skip("the strict-f32 device refuses float64 arrays")
    rng = np.random.default_rng(0)
    x = np.concatenate([np.array(SPECIAL), rng.standard_normal(500) * 20]).astype(dtype)
    with np.errstate(all="ignore"):
        want = stable(x)
    got = mg.tensor(x, device=device).sigmoid().cpu().numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), want.view(f"u{x.itemsize}"))


def test_sigmoid_gradient_and_values_at_the_extremes():
    x = mg.tensor([-np.inf, -800.0, -0.0, 0.0, 800.0, np.inf, np.nan], dtype="float64", requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exp(800.0) overflows inside the kernel: silenced there
        y = mg.sigmoid(x)
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), [0.0, 0.0, 0.5, 0.5, 1.0, 1.0, np.nan])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.25, 0.25, 0.0, 0.0, np.nan])


NAMESPACES = [("cpu", "float64"), ("cpu", "float32"), ("cpu", "float16"), ("cpu", "complex128"),
              ("strict", "float64"), ("strict-f32", "float32")]


@pytest.mark.parametrize("device,dtype", NAMESPACES)
@pytest.mark.parametrize("shape", [(), (7,), (3, 5), (2, 0)])
def test_the_kernel_writes_into_out_and_in_place_the_bits_it_returns(device, dtype, shape):
    """``xp.sigmoid(x, out=...)`` (a fused op's forward fills its output's blocks so, ``x`` itself
    included): the same bits as a new result, ``out`` returned, and a 0-d input gives a 0-d array."""
    xp = mg.tensor([1.0], device=device, dtype="float32" if device == "strict-f32" else "float64").device.xp
    rng = np.random.default_rng(len(shape))
    x = rng.choice(SPECIAL + [3.0, -7.5], size=shape).astype(dtype)
    if dtype.startswith("complex"):
        x = x + 1j * rng.choice([0.0, 1.0, -2.0], size=shape)
    arr = xp.asarray(x)
    fresh = xp.sigmoid(arr)
    out = xp.asarray(np.full(shape, 9, dtype=dtype))
    returned = xp.sigmoid(arr, out=out)  # (the strict device wraps what a ufunc returns anew: no identity)
    assert returned is out or device.startswith("strict")
    in_place = xp.asarray(x.copy())
    returned_in_place = xp.sigmoid(in_place, out=in_place)
    for got in (fresh, out, returned, in_place, returned_in_place):
        got = xp.to_host(got)
        assert isinstance(got, np.ndarray) and got.shape == shape and got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(_view_bits(got), _view_bits(xp.to_host(fresh)))
    if dtype in ("float64", "float32"):
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(_view_bits(xp.to_host(fresh)), _view_bits(stable(x)))


def _view_bits(a):
    a = a.reshape(-1)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a.view(f"u{a.itemsize // 2}")


def test_the_kernel_of_integers_and_booleans_gives_the_float_numpys_exp_gives():
    """float16 for 8-bit integers and booleans, float32 for 16-bit ones, float64 beyond: the kernel on
    the input cast to that float (float16 through float32, rounded once)."""
    xp = mg.tensor([1.0]).device.xp
    for dtype in ("int8", "uint8", "int16", "uint16", "int32", "int64", "uint64", "bool"):
        x = np.array([-3, 0, 5, 1], dtype=np.int64).astype(dtype)
        got = xp.sigmoid(x)
        want_dtype = np.exp(x).dtype
        assert got.dtype == want_dtype, dtype
        np.testing.assert_array_equal(got, xp.sigmoid(x.astype(want_dtype)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_as_accurate_as_the_overflow_free_form(dtype):
    """Against sigmoid in 80-bit floats, over the whole range where it is not 0 or 1 and well inside it:
    within 2.5 units in the last place of the exact value in float64 and 3.5 in float32 (the old form's
    bounds too), and no worse on average than the form
    ``maximum(exp(-|x|), x >= 0) / (1 + exp(-|x|))`` (which it replaced for speed)."""
    rng = np.random.default_rng(1)
    limit = 740.0 if dtype == "float64" else 100.0
    x = np.concatenate([rng.standard_normal(20000) * 10, rng.uniform(-limit, limit, 20000),
                        rng.uniform(-40, 40, 20000)]).astype(dtype)
    exact = 1 / (1 + np.exp(-x.astype(np.longdouble)))
    ulp = np.spacing(exact.astype(dtype)).astype(np.longdouble)
    keep = exact > np.finfo(dtype).tiny  # (subnormal results: ulps of another size)
    got = mg.tensor(x).sigmoid().numpy()
    with np.errstate(all="ignore"):
        old = overflow_free(x)
    err, err_old = (np.abs(a[keep] - exact[keep]) / ulp[keep] for a in (got, old))
    assert err.max() <= (2.5 if dtype == "float64" else 3.5)
    assert err.mean() <= err_old.mean() * 1.02
