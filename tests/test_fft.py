"""``mg.fft``: NumPy's values and signatures, PyTorch's ``dim=``, exact derivatives.

PyTorch's gradients, jvps and second derivatives of every function are
checked in tests/test_complex_vs_torch.py; here: forward values against
NumPy, the real-input transforms against their explicit DFT matrices (where
HIPS autograd once went wrong, autograd#185), central differences over
random shapes, axes, lengths and norms (Hypothesis), and the seams --
float32, the strict device, checkpointing, snapshots, forward mode.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import gradcheck, gradgradcheck

rng = np.random.default_rng(7)


def cplx(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


CALLS = [  # (function, input, keyword arguments) -- NumPy's spelling
    ("fft", cplx(6), {}), ("fft", cplx(6), {"n": 9, "norm": "ortho"}),
    ("fft", rng.standard_normal((3, 4)), {"axis": 0}),
    ("ifft", cplx(5), {"n": 3, "norm": "forward"}), ("rfft", rng.standard_normal(7), {}),
    ("rfft", rng.standard_normal((4, 6)), {"n": 5, "axis": 0, "norm": "ortho"}), ("irfft", cplx(5), {}),
    ("irfft", cplx(5), {"n": 7}), ("irfft", cplx(3, 4), {"n": 4, "axis": 0, "norm": "forward"}),
    ("hfft", cplx(4), {}), ("hfft", cplx(4), {"n": 5, "norm": "ortho"}), ("ihfft", rng.standard_normal(6), {}),
    ("ihfft", rng.standard_normal(6), {"n": 9, "norm": "forward"}), ("fft2", cplx(3, 4), {}),
    ("fft2", cplx(2, 3, 4), {"s": (5, 2)}), ("ifft2", cplx(3, 4), {"axes": (0, 1), "norm": "ortho"}),
    ("rfft2", rng.standard_normal((4, 5)), {}), ("irfft2", cplx(4, 3), {"s": (4, 5)}),
    ("fftn", cplx(2, 3, 4), {}), ("fftn", cplx(2, 3, 4), {"s": (3, 3), "axes": (2, 0)}),
    ("ifftn", cplx(2, 3, 4), {"axes": (1,)}), ("rfftn", rng.standard_normal((2, 3, 4)), {"s": (4, 5), "axes": (1, 2)}),
    ("irfftn", cplx(2, 3, 4), {}), ("irfftn", cplx(2, 3, 4), {"s": (2, 6), "axes": (0, 1)}),
    ("fftshift", rng.standard_normal((3, 4)), {}), ("fftshift", cplx(5, 4), {"axes": 1}),
    ("ifftshift", rng.standard_normal((3, 5)), {"axes": (0, 1)}), ("ifftshift", rng.standard_normal(7), {}),
]


@pytest.mark.parametrize("name,a,kw", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_values_match_numpy(name, a, kw):
    got = getattr(mg.fft, name)(mg.tensor(a), **kw)
    want = getattr(np.fft, name)(a, **kw)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,a,kw", CALLS[:24], ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS[:24])])
def test_derivatives_match_central_differences(name, a, kw):
    x = mg.tensor(a, requires_grad=True)
    f = getattr(mg.fft, name)
    gradcheck(lambda t: f(t, **kw), (x,))
    gradgradcheck(lambda t: f(t, **kw), (x,))


def test_pytorch_dim_spelling():
    a = cplx(3, 4, 5)
    x = mg.tensor(a)
    np.testing.assert_allclose(mg.fft.fft(x, dim=1).numpy(), np.fft.fft(a, axis=1))
    np.testing.assert_allclose(mg.fft.fftn(x, dim=(0, 2)).numpy(), np.fft.fftn(a, axes=(0, 2)))
    np.testing.assert_allclose(mg.fft.irfft2(x, s=(3, 6), dim=(0, 1)).numpy(), np.fft.irfft2(a, s=(3, 6), axes=(0, 1)))
    np.testing.assert_allclose(mg.fft.fftshift(x, dim=2).numpy(), np.fft.fftshift(a, axes=2))
    with pytest.raises(TypeError, match="either axis= or dim="):
        mg.fft.fft(x, axis=0, dim=0)


def test_frequencies():
    np.testing.assert_allclose(mg.fft.fftfreq(8, d=0.1, dtype="float64").numpy(), np.fft.fftfreq(8, d=0.1))
    np.testing.assert_allclose(mg.fft.rfftfreq(9, dtype="float64").numpy(), np.fft.rfftfreq(9))
    assert mg.fft.fftfreq(4).dtype == mg.get_default_dtype()
    assert not mg.fft.fftfreq(4).requires_grad


# PyTorch 2.13's values (made offline): the integer steps times 1 / (n * d) rounded to the
# dtype.  NumPy's float64 quotient cast to float32 differs at 6/7 (0.85714287).
_TORCH_FREQUENCIES = [
    (("fftfreq", 7, 0.5, "float32"), [0.0, 0.2857142984867096, 0.5714285969734192, 0.8571429252624512,
                                      -0.8571429252624512, -0.5714285969734192, -0.2857142984867096]),
    (("rfftfreq", 9, 1 / 3, "float32"), [0.0, 0.3333333432674408, 0.6666666865348816, 1.0, 1.3333333730697632]),
    (("fftfreq", 7, 1 / 3, "float16"), [0.0, 0.428466796875, 0.85693359375, 1.28515625, -1.28515625,
                                        -0.85693359375, -0.428466796875]),
]


@pytest.mark.parametrize("call, expected", _TORCH_FREQUENCIES)
def test_frequencies_round_as_pytorch(call, expected):
    name, n, d, dtype = call
    got = getattr(mg.fft, name)(n, d=d, dtype=dtype).numpy()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.array(expected, dtype=dtype))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 33])
@pytest.mark.parametrize("d", [1.0, 0.1, 1 / 3, 7.7])
def test_frequencies_are_steps_times_the_rounded_scale(n, d):
    scale32 = np.float32(1.0 / (n * d))
    steps = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    np.testing.assert_array_equal(mg.fft.fftfreq(n, d, dtype="float32").numpy(), steps.astype(np.float32) * scale32)
    np.testing.assert_array_equal(mg.fft.rfftfreq(n, d, dtype="float32").numpy(),
                                  np.arange(n // 2 + 1).astype(np.float32) * scale32)
    np.testing.assert_array_equal(mg.fft.fftfreq(n, d, dtype="float64").numpy(), np.fft.fftfreq(n, d))


# torch 2.13 (made offline): no samples, and samples 0 (or inf) apart, are values, not errors:
# torch.fft.fftfreq(0) is [], rfftfreq(0) [nan] (the 0 step times 1 / 0), fftfreq(3, 0.0)
# [nan, inf, -inf], rfftfreq(4, 0.0) [nan, inf, inf], fftfreq(4, inf) [0, 0, -0, -0].
# Here n = 0 was a RuntimeError and d = 0 a ZeroDivisionError.
_TORCH_DEGENERATE_FREQUENCIES = [
    (("fftfreq", 0, 1.0), []), (("rfftfreq", 0, 1.0), [math.nan]),
    (("fftfreq", 3, 0.0), [math.nan, math.inf, -math.inf]), (("rfftfreq", 4, 0.0), [math.nan, math.inf, math.inf]),
    (("fftfreq", 4, math.inf), [0.0, 0.0, -0.0, -0.0]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("call, expected", _TORCH_DEGENERATE_FREQUENCIES)
def test_degenerate_frequencies_are_pytorchs_values(call, expected, dtype):
    name, n, d = call
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no division warning either)
        got = getattr(mg.fft, name)(n, d, dtype=dtype).numpy()
    want = np.array(expected, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    signed = ~np.isnan(want)  # (a NaN's sign means nothing)
    np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(want[signed]))
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        getattr(mg.fft, name)(-1, d, dtype=dtype)


def test_frequencies_refuse_an_integer_dtype():
    with pytest.raises(ValueError, match="fftfreq requires a floating point or complex dtype"):
        mg.fft.fftfreq(4, dtype="int64")
    with pytest.raises(ValueError, match="rfftfreq requires a floating point"):
        mg.fft.rfftfreq(4, dtype=mg.int32)
    assert mg.fft.fftfreq(4, dtype="complex64").dtype == mg.complex64


def test_errors_name_the_function():
    x = mg.tensor(cplx(4))
    with pytest.raises(TypeError, match="rfft.* expects a real input"):
        mg.fft.rfft(x)
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        mg.fft.fft(x, norm="unitary")
    with pytest.raises(ValueError, match="Invalid number of data points"):
        mg.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="When given, dim and shape arguments must have the same length"):
        mg.fft.fftn(mg.tensor(cplx(2, 2)), s=(2, 2), axes=(0,))


def dft_matrix(n: int) -> np.ndarray:
    k = np.arange(n)
    return np.exp(-2j * np.pi * np.outer(k, k) / n)


@pytest.mark.parametrize("n", [5, 6])
def test_rfft_gradient_is_the_transpose_of_the_cropped_dft(n):
    """HIPS autograd#185: the gradient of rfft is Re(W^H pad(g)), not irfft(g) (which
    counts the missing half as the mirror of the kept one)."""
    m = n // 2 + 1
    a = rng.standard_normal(n)
    g = cplx(m)
    x = mg.tensor(a, requires_grad=True)
    (gx,) = mg.grad(mg.fft.rfft(x), [x], grad_outputs=mg.tensor(g))
    w = dft_matrix(n)[:m]
    np.testing.assert_allclose(gx.numpy(), np.real(w.conj().T @ g), atol=1e-12)
    assert not np.allclose(gx.numpy(), np.fft.irfft(g, n) * n)  # the old, wrong answer differs


@pytest.mark.parametrize("n", [5, 6])
def test_irfft_gradient_doubles_the_mirrored_bins(n):
    """irfft is real-linear in (Re X, Im X): its gradient is the transpose of that real matrix,
    built here column by column from irfft itself."""
    m = n // 2 + 1
    cols = []
    for k in range(m):
        for unit in (1.0, 1j):
            e = np.zeros(m, complex)
            e[k] = unit
            cols.append(np.fft.irfft(e, n))
    jac = np.array(cols).T  # (n, 2m): d out / d (Re X_0, Im X_0, Re X_1, ...)
    g = rng.standard_normal(n)
    x = mg.tensor(cplx(m), requires_grad=True)
    (gx,) = mg.grad(mg.fft.irfft(x, n), [x], grad_outputs=mg.tensor(g))
    pairs = jac.T @ g
    np.testing.assert_allclose(gx.numpy(), pairs[0::2] + 1j * pairs[1::2], atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_random_transforms_have_exact_derivatives(shape, data):
    ndim = len(shape)
    axes = tuple(data.draw(st.permutations(range(ndim)))[:data.draw(st.integers(1, ndim))])
    s = tuple(data.draw(st.integers(1, 5)) for _ in axes) if data.draw(st.booleans()) else None
    norm = data.draw(st.sampled_from([None, "backward", "ortho", "forward"]))
    name = data.draw(st.sampled_from(["fftn", "ifftn", "rfftn", "irfftn"]))
    assume(name != "irfftn" or (s or shape)[-1 if s else axes[-1]] > 1)  # NumPy too: n = 2 * (1 - 1) = 0
    real_input = name == "rfftn" or data.draw(st.booleans())
    a = rng.standard_normal(shape) if real_input else cplx(*shape)
    x = mg.tensor(a, requires_grad=True)
    f = getattr(mg.fft, name)
    np.testing.assert_allclose(f(x, s, axes, norm).numpy(), getattr(np.fft, name)(a, s, axes, norm), atol=1e-12)
    gradcheck(lambda t: f(t, s, axes, norm), (x,))
    gradgradcheck(lambda t: f(t, s, axes, norm), (x,), modes=("rev",))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_device_bit_for_bit(device):
    dt = "float32" if device == "strict-f32" else "float64"
    a = rng.standard_normal((3, 8)).astype(dt)
    results = []
    for dev in ("cpu", device):
        x = mg.tensor(a, device=dev, requires_grad=True)
        spec = mg.fft.rfft(x, norm="ortho")
        y = mg.fft.irfft(spec * mg.fft.fft(mg.fft.ifftshift(x), n=5).real.sum(), n=8)
        loss = (y * y).sum() + mg.fft.hfft(spec).sum()
        loss.backward()
        results.append((y.numpy(), x.grad.numpy()))
    assert results[1][0].dtype == np.dtype(dt)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


def test_float32_stays_single_precision():
    x = mg.tensor(rng.standard_normal(6).astype("float32"), requires_grad=True)
    spec = mg.fft.rfft(x)
    assert spec.dtype == np.complex64
    (spec.real.sum() + spec.imag.sum()).backward()
    assert x.grad.dtype == np.float32
    assert mg.fft.irfft(spec).dtype == np.float32


def test_forward_mode_matches_reverse_mode():
    a = rng.standard_normal((4, 6))
    x, t = mg.tensor(a), mg.tensor(rng.standard_normal((4, 6)))

    def f(v):
        spec = mg.fft.rfft2(v * v.tanh())
        return mg.fft.irfft2(spec.conj(), s=(4, 6)) + mg.fft.ifftn(v).imag * v

    _, jv = mg.func.jvp(f, (x,), (t,))
    u = rng.standard_normal((4, 6))
    _, vjp_fn = mg.func.vjp(f, x)
    (ju,) = vjp_fn(mg.tensor(u))
    assert np.isclose(float((jv.numpy() * u).sum()), float((ju.numpy() * t.numpy()).sum()))


def test_inside_a_checkpointed_segment():
    a = rng.standard_normal((2, 8))

    def block(v):
        return mg.fft.irfft(mg.fft.rfft(v) * mg.fft.rfft(v.tanh()), n=8)

    grads = []
    for use_ckpt in (False, True):
        x = mg.tensor(a, requires_grad=True)
        y = ck.checkpoint(block, x) if use_ckpt else block(x)
        (y * y).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_complex_tensors_survive_save_and_load(tmp_path):
    z = mg.fft.fft(mg.tensor(rng.standard_normal(5).astype("float32")))
    w = mg.fft.fft(mg.tensor(rng.standard_normal((2, 3))))
    mg.save({"z": z, "w": w}, tmp_path / "spectra.mg")
    back = mg.load(tmp_path / "spectra.mg")
    for k, v in (("z", z), ("w", w)):
        assert back[k].dtype == v.dtype
        np.testing.assert_array_equal(back[k].numpy(), v.numpy())


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_the_n_dimensional_hermitian_transforms(device):
    """hfft2/ihfft2/hfftn/ihfftn (PyTorch's; NumPy has none): ihfftn undoes hfftn on a
    Hermitian half spectrum, hfftn over one axis is hfft, and the float32 device keeps
    single precision.  PyTorch's values, gradients, jvps and second derivatives are in
    tests/test_complex_vs_torch.py (cases hfft2_*, ihfft2_*, hfftn*, ihfftn*)."""
    dt = "float32" if device == "strict-f32" else "float64"
    signal = rng.standard_normal((3, 6)).astype(dt)
    x = mg.tensor(signal, device=device)
    half = mg.fft.ihfft2(x, norm="ortho")
    assert half.shape == (3, 4) and half.dtype == (np.complex64 if dt == "float32" else np.complex128)
    back = mg.fft.hfft2(half, s=(3, 6), norm="ortho")
    assert back.dtype == np.dtype(dt)
    np.testing.assert_allclose(back.numpy(), signal, atol=1e-5 if dt == "float32" else 1e-12)
    spectrum = cplx(2, 5).astype("complex64" if dt == "float32" else "complex128")
    np.testing.assert_allclose(mg.fft.hfftn(mg.tensor(spectrum, device=device), dim=(1,), s=(7,)).numpy(),
                               np.fft.hfft(spectrum, 7), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mg.fft.ihfftn(x, dim=(0,)).numpy(), np.fft.ihfft(signal, axis=0),
                               rtol=1e-5, atol=1e-6)


FFT_FUNCTIONS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
                 "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", FFT_FUNCTIONS)
@pytest.mark.parametrize("source", ["int64", "uint8", "bool"])
@pytest.mark.parametrize("default,device", [("float32", "cpu"), ("float64", "cpu"), ("float32", "strict-f32")])
def test_integer_and_bool_input_is_transformed_in_the_default_float_dtype(name, source, default, device):
    # torch.fft.fft(torch.arange(4)).dtype == complex64 (torch.float64 as the default: complex128),
    # torch.fft.irfft(torch.arange(4)).dtype == float32: every torch.fft function casts integers and
    # bools to the default float dtype first (NumPy's fft takes float64, which the engine followed)
    a = (np.arange(12).reshape(3, 4) % 3).astype(source)
    previous = mg.get_default_dtype()
    mg.set_default_dtype(default)
    try:
        result = getattr(mg.fft, name)(mg.tensor(a, device=device))
        expected = getattr(mg.fft, name)(mg.tensor(a.astype(default), device=device))
    finally:
        mg.set_default_dtype(previous)
    assert result.dtype == expected.dtype
    assert result.dtype in (np.dtype(default), np.result_type(default, np.complex64))
    np.testing.assert_array_equal(result.numpy(), expected.numpy())
    np.testing.assert_allclose(mg.fft.fft(mg.tensor(np.arange(4))).numpy(), [6, -2 + 2j, -2, -2 - 2j])


def test_an_int_s_is_the_size_of_the_last_axis():
    # torch.fft.fftn(x, s=3) (and the other n-dimensional transforms) read an int s as (3,); it raised
    x = mg.tensor(rng.standard_normal((2, 5)))
    for name in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"):
        fn = getattr(mg.fft, name)
        np.testing.assert_array_equal(fn(x, s=3).numpy(), fn(x, s=(3,)).numpy())
        np.testing.assert_array_equal(fn(x, s=3, dim=0).numpy(), fn(x, s=(3,), dim=(0,)).numpy())


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_no_axes_to_transform(device):
    # torch.fft.fftn(x, dim=()) (also s=(), ifftn, fft2(dim=())) is x as a complex tensor, a copy;
    # the real-input and real-output transforms raise "... must transform at least one axis"
    a = rng.standard_normal((2, 3)).astype(np.float32)
    x = mg.tensor(a, device=device, requires_grad=True)
    for y in (mg.fft.fftn(x, dim=()), mg.fft.ifftn(x, s=()), mg.fft.fft2(x, dim=())):
        assert y.dtype == mg.complex64
        np.testing.assert_array_equal(y.numpy(), a.astype(np.complex64))
    (mg.fft.fftn(x, dim=()) * (1 - 2j)).real.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3), np.float32))
    z = mg.tensor(a + 1j, device=device)
    w = mg.fft.ifftn(z, dim=(), norm="ortho")
    assert w is not z and np.array_equal(w.numpy(), z.numpy())
    for name in ("rfftn", "irfftn", "hfftn", "ihfftn", "rfft2", "hfft2", "ihfft2"):
        with pytest.raises(ValueError, match=f"^{name} must transform at least one axis"):
            getattr(mg.fft, name)(x.detach(), dim=())


def test_errors_name_the_hermitian_and_one_dimensional_functions():
    x = mg.tensor(cplx(4))
    for name in ("rfft", "ihfft", "ihfftn", "ihfft2"):  # they said rfftn
        with pytest.raises(TypeError, match=f"^{name} expects a real(-valued)? input"):
            getattr(mg.fft, name)(x)
    for name in ("irfft", "hfft"):  # they said irfftn
        with pytest.raises(ValueError, match=f"^{name}: Invalid number of data points"):
            getattr(mg.fft, name)(x, n=0)


def test_a_repeated_axis_shifts_twice():
    # torch.fft.fftshift(x, dim=(1, 1)) is [[2, 3, 1], [5, 6, 4]], ifftshift [[3, 1, 2], [6, 4, 5]]; they raised
    x = mg.tensor([[1.0, 2, 3], [4, 5, 6]], requires_grad=True)
    assert mg.fft.fftshift(x, dim=(1, 1)).tolist() == [[2, 3, 1], [5, 6, 4]]
    assert mg.fft.ifftshift(x, dim=(1, -1)).tolist() == [[3, 1, 2], [6, 4, 5]]
    assert mg.fft.fftshift(x, dim=(0, 1, 0)).tolist() == mg.fft.fftshift(x, dim=1).tolist()
    (mg.fft.fftshift(x, dim=(1, 1)) * mg.tensor([[1.0, 0, 0], [0, 0, 0]])).sum().backward()
    assert x.grad.tolist() == [[0, 1, 0], [0, 0, 0]]
