"""``mg.fft``'s transforms and frequency tables take PyTorch's ``out=``: the result is written into
``out`` and ``out`` is returned; a real ``out`` for a complex result is refused (PyTorch: "fft expects
a complex output tensor"), a complex one of another precision takes the cast, and with grad mode on
nothing that requires grad may take part (the write is not recorded).  Values are the transforms'
own, checked against the call without ``out``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

TRANSFORMS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn",
              "ifftn", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn"]
COMPLEX_INPUT = {"irfft", "hfft", "irfft2", "irfftn", "hfft2", "hfftn"}


def _input(name, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 6))
    if name in COMPLEX_INPUT:
        x = x + 1j * rng.standard_normal((4, 6))
    return mg.tensor(x, device=device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", TRANSFORMS)
def test_a_transform_writes_into_out(name, device):
    fn = getattr(mg.fft, name)
    x = _input(name, device)
    want = fn(x)
    out = mg.empty(want.shape, dtype=want.dtype, device=device)
    got = fn(x, out=out)
    assert got is out
    assert np.array_equal(mg.backend.to_host(out._data), mg.backend.to_host(want._data))
    if want.dtype.kind == "c":
        with pytest.raises(RuntimeError, match="expects a complex output tensor, but got Double"):  # torch 2.13's
            fn(x, out=mg.empty(want.shape, dtype=mg.float64, device=device))
        wider = mg.empty(want.shape, dtype=mg.complex64, device=device)
        if name in ("ifft", "ihfft"):  # torch 2.13's one-dimensional inverses take their own width only
            with pytest.raises(RuntimeError, match="Found dtype ComplexFloat but expected ComplexDouble"):
                fn(x, out=wider)
            return
        fn(x, out=wider)
        assert wider.dtype == mg.complex64
        np.testing.assert_allclose(mg.backend.to_host(wider._data), mg.backend.to_host(want._data), rtol=1e-5,
                                   atol=1e-5)


def test_an_input_that_requires_grad_is_refused_with_out():
    x = mg.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        mg.fft.fft(x, out=mg.empty(4, dtype=mg.complex64))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequency_tables_write_into_out(name):
    fn = getattr(mg.fft, name)
    out = mg.empty(3)
    assert fn(5, 0.5, out=out) is out  # (resized to the table's length, as a creation function's out)
    np.testing.assert_array_equal(out.numpy(), fn(5, 0.5).numpy())


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_the_frequencies_into_an_out_of_another_size_warn_as_arange(name):
    # torch.fft.fftfreq(100, .5, out=torch.empty(())) warns (it is arange times a scale, and arange's
    # out= warns of a resize: test_spectral_ops.py's test_fftfreq_out); the engine resized silently
    f = getattr(mg.fft, name)
    out = mg.empty(())
    with pytest.warns(UserWarning, match="out tensor will be resized"):
        assert f(100, 0.5, out=out) is out
    np.testing.assert_array_equal(out.numpy(), f(100, 0.5).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out takes any size quietly, as torch's
        f(100, 0.5, out=mg.empty(0))
