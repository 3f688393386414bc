"""The Fourier transforms refuse an argument in PyTorch's words, as ``SpectralArgumentError`` says.

PyTorch's own spectral tests (test/test_spectral_ops.py: ``test_empty_fft``, ``test_fftn_invalid``,
``test_fft2_invalid``, ``test_fft_invalid_dtypes``) match these messages, and a script that catches
them reads the same words.  The engine's said ``invalid number`` (lower case), ``repeated axes``,
``s and axes have different lengths``, ``s has 4 entries``, ``norm must be`` and ``expects a real
input, got complex64``; each kept the class (a ``RuntimeError``) but lost PyTorch's words.  The
patterns below are torch 2.13's, pasted as literals; each message still starts with the name of
the function that was called.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

ALL = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
       "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
ND = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
POINTS = r"Invalid number of data points \([-\d]*\) specified"


@pytest.mark.parametrize("name", ALL)
def test_an_empty_axis_is_an_invalid_number_of_data_points(name):
    with pytest.raises(RuntimeError, match=f"^{name}: {POINTS}"):
        getattr(mg.fft, name)(mg.empty(1, 0))


@pytest.mark.parametrize("name", ["irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn"])
def test_a_half_spectrum_of_one_gives_no_data_points(name):
    with pytest.raises(RuntimeError, match=POINTS):
        getattr(mg.fft, name)(mg.empty(2, 1, dtype=mg.complex64))


@pytest.mark.parametrize("n", [0, -2])
def test_a_length_below_one(n):
    with pytest.raises(RuntimeError, match=rf"^fft: Invalid number of data points \({n}\) specified"):
        mg.fft.fft(mg.ones(4), n=n)
    with pytest.raises(RuntimeError, match=r"^fftfreq: Invalid number of data points \(-1\) specified"):
        mg.fft.fftfreq(-1)


@pytest.mark.parametrize("name", ND)
def test_dims_and_shapes(name):
    a = mg.rand(10, 10, 10)
    f = getattr(mg.fft, name)
    for dim in [(0, 1, 0), (2, -1)]:
        with pytest.raises(RuntimeError, match=f"^{name}: FFT dims must be unique"):
            f(a, dim=dim)
    with pytest.raises(RuntimeError, match=f"^{name}: When given, dim and shape .* same length"):
        f(a, s=(1,), dim=(0, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        f(a, dim=(3,))


def test_a_shape_longer_than_the_input():
    words = "^fftn: Got shape with 4 values but input tensor only has 3 dimensions"
    with pytest.raises(RuntimeError, match=words):
        mg.fft.fftn(mg.rand(10, 10, 10), s=(10, 10, 10, 10))


def test_an_unknown_normalization():
    with pytest.raises(RuntimeError, match="^ifft: Invalid normalization mode: 'unitary'"):
        mg.fft.ifft(mg.ones(4), norm="unitary")


@pytest.mark.parametrize("name, words", [(n, "real input tensor") for n in ("rfft", "ihfft")]
                         + [(n, "real-valued input tensor") for n in ("rfftn", "rfft2", "ihfftn", "ihfft2")])
@pytest.mark.parametrize("dtype, torch_name", [(mg.complex64, "ComplexFloat"), (mg.complex128, "ComplexDouble")])
def test_a_complex_input_to_a_real_transform(name, words, dtype, torch_name):
    with pytest.raises(RuntimeError, match=f"^{name} expects a {words}, but got {torch_name}"):
        getattr(mg.fft, name)(mg.ones(4, 4, dtype=dtype))
