"""``mg.stft`` and ``mg.istft`` against torch 2.13: values, shapes, dtypes, errors, gradients.

The values and gradients come from ``tests/data/torch_stft_fixtures.py`` (written offline by
``tests/data/make_torch_stft_fixtures.py``: ``torch.stft``/``torch.istft`` of the seeded
inputs of ``tests/data/stft_cases.py`` over n_fft even and odd, hop lengths, short windows,
``window=None`` and Hann, ``center``, the four pad modes, ``normalized``, ``onesided``,
batches, complex signals, ``align_to_window``, ``length``, ``return_complex``).  Here also:
the round trip, central differences in both modes, float32, the strict device and
checkpointing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import gradcheck, gradgradcheck

sys.path.insert(0, str(Path(__file__).parent / "data"))
from stft_cases import ISTFT, STFT, istft_data, istft_input_shape, stft_data, window  # noqa: E402
from torch_stft_fixtures import ISTFT_EXPECTED, STFT_EXPECTED  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:.*A window was not provided:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*shorter than the length parameter:UserWarning")]


def leaf(a):
    return None if a is None else mg.tensor(a, requires_grad=True)


def grad_of(t):
    return None if t is None else t.grad.numpy()


def assert_close(got, want):
    if want is None:
        assert got is None
    else:
        np.testing.assert_allclose(got, np.asarray(want).reshape(np.shape(got)), rtol=1e-9, atol=1e-10)


# ------------------------------------------------------------------- PyTorch's fixtures
@pytest.mark.parametrize("k", range(len(STFT)), ids=[c[0] for c in STFT])
def test_stft_matches_torch(k):
    name, shape, n_fft, hop, wl, win, center, pad_mode, normalized, onesided, cplx, align = STFT[k]
    want_shape, want_proj, want_loss, want_gx, want_gw = STFT_EXPECTED[name]
    x, w = leaf(stft_data(k, shape, cplx)), leaf(window(win, wl or n_fft))
    out = mg.stft(x, n_fft, hop, wl, w, center, pad_mode, normalized, onesided, return_complex=True,
                  align_to_window=align)
    assert out.shape == want_shape and out.dtype == np.complex128
    _, P, W = stft_data(k, shape, cplx, out.shape)
    np.testing.assert_allclose((out.numpy() * P).sum(), want_proj, rtol=1e-10)
    loss = (out.abs() ** 2 * mg.tensor(W)).sum()
    np.testing.assert_allclose(loss.item(), want_loss, rtol=1e-10)
    loss.backward()
    assert_close(grad_of(x), want_gx)
    assert_close(grad_of(w), want_gw)


@pytest.mark.parametrize("k", range(len(ISTFT)), ids=[c[0] for c in ISTFT])
def test_istft_matches_torch(k):
    name, batch, n_fft, hop, wl, win, center, normalized, onesided, length, rc, n_frames = ISTFT[k]
    want_shape, want_y, want_gz, want_gw = ISTFT_EXPECTED[name]
    z = leaf(istft_data(k, istft_input_shape(batch, n_fft, onesided, rc, n_frames)))
    w = leaf(window(win, wl or n_fft))
    y = mg.istft(z, n_fft, hop, wl, w, center, normalized, onesided, length, rc)
    assert y.shape == want_shape and y.dtype == (np.complex128 if rc else np.float64)
    assert_close(y.numpy(), want_y)
    _, W = istft_data(k, z.shape, y.shape)
    (y.abs() ** 2 * mg.tensor(W)).sum().backward()
    assert_close(grad_of(z), want_gz)
    assert_close(grad_of(w), want_gw)


def test_stft_of_a_ramp_in_full():
    # torch.stft(torch.arange(8.), 4, hop_length=2, window=torch.hann_window(4), return_complex=True)
    want = np.array([[1, 4, 8, 12, 12], [0, -2 + 1j, -4 + 1j, -6 + 1j, -6 - 1j], [-1, 0, 0, 0, 0]])
    out = mg.stft(mg.arange(8.0), 4, hop_length=2, window=mg.hann_window(4), return_complex=True)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out.numpy(), want, atol=1e-6)


# ------------------------------------------------------------------- layouts, dtypes, the method
def test_real_input_needs_return_complex_and_false_is_the_deprecated_real_layout():
    x = mg.tensor(np.arange(10, dtype=np.float32))
    # torch.stft(torch.arange(10.), 4): RuntimeError "stft requires the return_complex parameter be given ..."
    with pytest.raises(RuntimeError, match="requires the return_complex parameter"):
        mg.stft(x, 4)
    # torch.stft(torch.arange(10.), 4, return_complex=False): a deprecation warning, (3, 11, 2) float32
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        parts = mg.stft(x, 4, return_complex=False)
    assert parts.shape == (3, 11, 2) and parts.dtype == np.float32
    np.testing.assert_array_equal(parts.numpy(), mg.view_as_real(mg.stft(x, 4, return_complex=True)).numpy())
    # a complex signal is complex by default, two-sided: torch (4, 11) complex64
    z = mg.stft(x * (1 + 1j), 4)
    assert z.shape == (4, 11) and z.dtype == np.complex64


@pytest.mark.parametrize("x_dtype, w_dtype, want", [
    ("float32", None, np.complex64), ("float64", None, np.complex128), ("float32", "float32", np.complex64),
    ("float32", "float64", np.complex128), ("float64", "float32", np.complex128),
    ("float32", "int64", np.complex64),  # as torch.stft: the window's dtype promotes with the signal's
])
def test_output_dtypes_are_torchs(x_dtype, w_dtype, want):
    x = mg.tensor(np.arange(10).astype(x_dtype))
    w = None if w_dtype is None else mg.tensor(np.ones(4, dtype=w_dtype))
    spec = mg.stft(x, 4, window=w, return_complex=True)
    assert spec.dtype == want
    back = mg.istft(spec, 4, window=w)
    assert back.dtype == np.empty(0, want).real.dtype


def test_missing_windows_warn_as_torch():
    x = mg.tensor(np.arange(10.0))
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window will be applied"):
        spec = mg.stft(x, 4, return_complex=True)
    with pytest.warns(UserWarning, match="Please provide the same window used by stft"):
        mg.istft(spec, 4)


def test_the_tensor_methods_are_the_functions():
    x = mg.tensor(np.random.default_rng(0).standard_normal(12))
    w = mg.hann_window(4, dtype="float64")
    spec = x.stft(4, window=w, return_complex=True)
    np.testing.assert_array_equal(spec.numpy(), mg.stft(x, 4, window=w, return_complex=True).numpy())
    np.testing.assert_array_equal(spec.istft(4, window=w).numpy(), mg.istft(spec, 4, window=w).numpy())


# ------------------------------------------------------------------- errors (torch 2.13's words)
X10 = np.arange(10.0)


@pytest.mark.parametrize("args, kwargs, error, message", [
    ((X10, 0), {}, RuntimeError, r"expected 0 < n_fft < 10, but got n_fft=0"),
    ((X10.reshape(2, 5), 6), {"center": False}, RuntimeError, r"expected 0 < n_fft < 5, but got n_fft=6"),
    ((X10.reshape(1, 2, 5), 4), {}, RuntimeError, "expected a 1D or 2D tensor"),
    ((X10, 4), {"hop_length": 0}, RuntimeError, "expected hop_length > 0, but got hop_length=0"),
    ((X10, 4), {"win_length": 5}, RuntimeError, r"expected 0 < win_length <= n_fft, but got win_length=5"),
    ((X10, 4), {"window": np.ones(3)}, RuntimeError, "expected a 1D window tensor of size equal to win_length=4"),
    ((np.arange(3.0), 8), {}, RuntimeError, "Padding size should be less than the corresponding input dimension"),
    ((np.arange(3.0), 8), {"pad_mode": "circular"}, RuntimeError, "wrapping around more than once"),
    ((X10, 4), {"pad_mode": "bogus"}, NotImplementedError, "Unrecognised padding mode bogus"),
    ((np.arange(10), 4), {}, RuntimeError, "expected a tensor of floating point or complex values"),
    ((X10 * 1j, 4), {"onesided": True}, RuntimeError, "Cannot have onesided output if window or input is complex"),
    ((X10, 4), {"align_to_window": False}, RuntimeError, "align_to_window should only be set when center = false"),
])
def test_stft_errors(args, kwargs, error, message):
    kwargs = {"return_complex": True, **kwargs}
    if "window" in kwargs:
        kwargs["window"] = mg.tensor(kwargs["window"])
    with pytest.raises(error, match=message):
        mg.stft(mg.tensor(args[0]), *args[1:], **kwargs)


SPEC = np.random.default_rng(1).standard_normal((5, 11)) * (1 + 0.5j)  # 5 = 8 // 2 + 1 frequencies
HANN8 = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)


@pytest.mark.parametrize("spec, n_fft, kwargs, error, message", [
    (SPEC.real, 8, {}, RuntimeError, "istft requires a complex-valued input tensor"),
    (SPEC[:, :0], 8, {}, RuntimeError, "input tensor cannot be empty"),
    (SPEC[0], 8, {}, IndexError, "got 1-D"),  # torch: IndexError 'Dimension out of range'
    (SPEC.reshape(1, 1, 5, 11), 8, {}, RuntimeError, "dimensions"),
    (SPEC, 10, {}, RuntimeError, r"to match n_fft / 2 \+ 1 when onesided=True, but got 5"),
    (SPEC, 8, {"onesided": False}, RuntimeError, "to match n_fft when onesided=False, but got 5"),
    (SPEC, 8, {"win_length": 10}, RuntimeError, r"expected 0 < win_length <= n_fft"),
    (SPEC, 8, {"hop_length": 9}, RuntimeError, r"expected 0 < hop_length <= win_length"),
    (SPEC, 8, {"window": np.ones(5)}, RuntimeError, "Invalid window shape"),
    (SPEC, 8, {"window": HANN8, "return_complex": True}, RuntimeError, "Cannot have onesided output"),
    (SPEC, 8, {"window": HANN8 * (1 + 0j)}, RuntimeError, "Complex windows are incompatible with return_complex=False"),
    # the NOLA condition: torch.istft(spec, 8, hop_length=8, window=torch.hann_window(8)) -- hann's zero
    # at every frame's start is never covered by another frame
    (SPEC, 8, {"hop_length": 8, "window": HANN8}, RuntimeError, "window overlap add min: 1"),
    (SPEC, 8, {"hop_length": 2, "window": HANN8, "center": False}, RuntimeError, "window overlap add min"),
    (SPEC, 8, {"window": HANN8, "length": 0}, RuntimeError, "numel"),
])
def test_istft_errors(spec, n_fft, kwargs, error, message):
    if "window" in kwargs:
        kwargs["window"] = mg.tensor(kwargs["window"])
    with pytest.raises(error, match=message):
        mg.istft(mg.tensor(spec), n_fft, **kwargs)


def test_istft_pads_a_longer_length_with_zeros_and_warns():
    spec = mg.tensor(SPEC)
    with pytest.warns(UserWarning, match="shorter than the length parameter"):  # torch warns alike
        y = mg.istft(spec, 8, hop_length=2, window=mg.tensor(HANN8), length=30)
    # torch.istft(..., length=30): the 8 + 2 * 10 overlap-added samples less the 4 of the front
    # padding (the back's 4 are kept, as a length is given), then 6 zeros
    assert y.shape == (30,)
    np.testing.assert_array_equal(y.numpy()[24:], 0)
    assert (y.numpy()[20:24] != 0).all()
    np.testing.assert_array_equal(y.numpy()[:20], mg.istft(spec, 8, hop_length=2, window=mg.tensor(HANN8)).numpy())


# ------------------------------------------------------------------- the round trip
@pytest.mark.parametrize("n_fft, hop, win_length, center, batch", [
    (8, 2, None, True, False), (7, 2, None, True, True), (8, 3, 6, True, False),
    (6, 1, None, False, True), (6, 2, 4, True, True),
])
def test_istft_inverts_stft(n_fft, hop, win_length, center, batch):
    rng = np.random.default_rng(n_fft + hop)
    x = mg.tensor(rng.standard_normal((2, 31) if batch else (31,)))
    w = mg.tensor(window("lifted", win_length or n_fft))
    spec = mg.stft(x, n_fft, hop, win_length, w, center=center, return_complex=True)
    n = x.shape[-1] if center else n_fft + hop * (spec.shape[-1] - 1)  # without center the tail is lost
    y = mg.istft(spec, n_fft, hop, win_length, w, center=center, length=n)
    np.testing.assert_allclose(y.numpy(), x.numpy()[..., :n], atol=1e-12)


def test_complex_round_trip():
    rng = np.random.default_rng(5)
    z = mg.tensor(rng.standard_normal(17) + 1j * rng.standard_normal(17))
    w = mg.hann_window(6, dtype="float64")
    back = mg.istft(mg.stft(z, 6, 2, window=w), 6, 2, window=w, length=17, return_complex=True)
    np.testing.assert_allclose(back.numpy(), z.numpy(), atol=1e-12)


# ------------------------------------------------------------------- derivatives, both modes
def test_gradcheck_stft_both_modes_and_second_order():
    rng = np.random.default_rng(2)
    x = mg.tensor(rng.standard_normal((2, 9)), requires_grad=True)
    w = mg.tensor(window("hann", 3) + 0.1, requires_grad=True)

    def f(x, w):
        return mg.stft(x, 5, 2, 3, w, pad_mode="reflect", normalized=True, return_complex=True)

    assert gradcheck(f, (x, w), modes=("rev", "fwd"))
    assert gradgradcheck(f, (x, w), modes=("rev",))


def test_gradcheck_istft_both_modes_and_second_order():
    rng = np.random.default_rng(3)
    z = mg.tensor(rng.standard_normal((3, 6)) + 1j * rng.standard_normal((3, 6)), requires_grad=True)
    w = mg.tensor(window("lifted", 4), requires_grad=True)

    def f(z, w):
        return mg.istft(z, 4, 1, window=w, length=7)

    assert gradcheck(f, (z, w), modes=("rev", "fwd"))
    assert gradgradcheck(f, (z, w), modes=("rev",))


def test_jvp_matches_finite_differences():
    rng = np.random.default_rng(4)
    a, t = rng.standard_normal(14), rng.standard_normal(14)
    w = mg.tensor(window("hann", 6))

    def f(x):
        spec = mg.stft(x, 6, 2, window=w, pad_mode="replicate", return_complex=True)
        return mg.istft(spec * spec.abs(), 6, 2, window=w, length=14)

    _, jv = mg.func.jvp(f, (mg.tensor(a),), (mg.tensor(t),))
    eps = 1e-6
    fd = (f(mg.tensor(a + eps * t)).numpy() - f(mg.tensor(a - eps * t)).numpy()) / (2 * eps)
    np.testing.assert_allclose(jv.numpy(), fd, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------- float32, strict device, checkpointing
def test_float32_stays_single_precision_and_matches_float64():
    rng = np.random.default_rng(6)
    a = rng.standard_normal(20)
    results = []
    for dt in ("float32", "float64"):
        x = mg.tensor(a.astype(dt), requires_grad=True)
        w = mg.hann_window(8, dtype=dt)
        spec = mg.stft(x, 8, 2, window=w, return_complex=True)
        y = mg.istft(spec * spec, 8, 2, window=w)
        (y * y).sum().backward()
        results.append((spec.numpy(), y.numpy(), x.grad.numpy()))
    assert [r.dtype for r in results[0]] == [np.complex64, np.float32, np.float32]
    for got, want in zip(results[0], results[1]):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4 * np.abs(want).max())


def stft_loss(x, w):
    spec = mg.stft(x, 6, 2, 5, w, pad_mode="reflect", return_complex=True)
    y = mg.istft(spec * spec.abs(), 6, 2, 5, w, length=x.shape[-1])
    return (y * y).sum() + (spec.abs() ** 2).sum()


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_device_bit_for_bit(device):
    dt = "float32" if device == "strict-f32" else "float64"
    rng = np.random.default_rng(8)
    a, wa = rng.standard_normal((2, 16)).astype(dt), (window("lifted", 5)).astype(dt)
    results = []
    for dev in ("cpu", device):
        x = mg.tensor(a, device=dev, requires_grad=True)
        w = mg.tensor(wa, device=dev, requires_grad=True)
        loss = stft_loss(x, w)
        loss.backward()
        results.append((loss.numpy(), x.grad.numpy(), w.grad.numpy()))
    assert results[1][1].dtype == np.dtype(dt)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


def test_inside_a_checkpointed_segment_gradients_are_bitwise_equal():
    rng = np.random.default_rng(9)
    a, wa = rng.standard_normal((2, 16)), window("lifted", 5)
    grads = []
    for use_ckpt in (False, True):
        x, w = mg.tensor(a, requires_grad=True), mg.tensor(wa, requires_grad=True)
        loss = ck.checkpoint(stft_loss, x, w) if use_ckpt else stft_loss(x, w)
        loss.backward()
        grads.append((loss.numpy(), x.grad.numpy(), w.grad.numpy()))
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_array_equal(got, want)


def test_under_the_function_transforms():
    rng = np.random.default_rng(10)
    x = mg.tensor(rng.standard_normal((3, 12)))
    w = mg.hann_window(4, dtype="float64")

    def round_trip(v):
        return mg.istft(mg.stft(v, 4, 2, window=w, return_complex=True) * 2, 4, 2, window=w, length=12)

    # a perfect reconstruction times 2: its Jacobian is 2 I, in both modes
    np.testing.assert_allclose(mg.func.jacrev(round_trip)(x[0]).numpy(), 2 * np.eye(12), atol=1e-12)
    np.testing.assert_allclose(mg.func.jacfwd(round_trip)(x[0]).numpy(), 2 * np.eye(12), atol=1e-12)
    batched = mg.vmap(lambda v: mg.stft(v, 4, 2, window=w, return_complex=True))(x)
    np.testing.assert_array_equal(batched.numpy(), mg.stft(x, 4, 2, window=w, return_complex=True).numpy())
