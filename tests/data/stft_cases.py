"""The short-time Fourier transform cases of ``tests/test_stft.py``, for both engines.

``make_torch_stft_fixtures.py`` runs them through torch 2.13 and writes
``torch_stft_fixtures.py``; the test replays them with minigrad_ckpt.  Inputs come from
NumPy's seeded generator, so the fixture stores only PyTorch's answers.
"""

from __future__ import annotations

import numpy as np

#: name, signal shape, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
#: onesided, complex signal, align_to_window
STFT = [
    ("even_default", (12,), 4, None, None, None, True, "reflect", False, None, False, None),
    ("even_hann_hop1", (12,), 4, 1, None, "hann", True, "reflect", False, None, False, None),
    ("odd_hann_hop2", (11,), 5, 2, None, "hann", True, "reflect", False, None, False, None),
    ("odd_short_window", (11,), 5, 2, 3, "hann", True, "reflect", False, None, False, None),
    ("even_short_window", (12,), 6, 2, 3, "hann", True, "reflect", False, None, False, None),
    ("short_rect_window", (12,), 6, 2, 4, None, True, "reflect", False, None, False, None),
    ("constant_pad", (10,), 4, 3, None, "hann", True, "constant", False, None, False, None),
    ("replicate_pad", (10,), 5, 3, None, "hann", True, "replicate", False, None, False, None),
    ("circular_pad", (10,), 6, 2, None, "hann", True, "circular", False, None, False, None),
    ("no_center", (13,), 4, 3, None, "hann", False, "reflect", False, None, False, None),
    ("no_center_odd", (13,), 5, 2, 4, "hann", False, "reflect", False, None, False, None),
    ("normalized", (12,), 4, 2, None, "hann", True, "reflect", True, None, False, None),
    ("twosided_real", (12,), 4, 2, None, "hann", True, "reflect", False, False, False, None),
    ("twosided_odd_normalized", (11,), 5, 2, None, "hann", True, "reflect", True, False, False, None),
    ("batch", (2, 10), 4, 2, None, "hann", True, "reflect", False, None, False, None),
    ("batch_no_center", (3, 9), 4, 2, 3, "hann", False, "reflect", True, None, False, None),
    ("complex", (11,), 4, 2, None, "hann", True, "reflect", False, None, True, None),
    ("complex_batch_constant", (2, 9), 5, 2, 4, "hann", True, "constant", True, None, True, None),
    ("complex_rect", (10,), 4, 3, None, None, False, "reflect", False, False, True, None),
    ("aligned_window", (13,), 6, 2, 4, "hann", False, "reflect", False, None, False, True),
    ("aligned_full_window", (13,), 4, 3, None, "hann", False, "reflect", False, None, False, True),
]

#: name, batch, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
#: return_complex, n_frames (the input is a random spectrum, not an stft's: istft is
#: defined for any, and its least-squares inverse is what is checked)
ISTFT = [
    ("hann_hop1", None, 4, 1, None, "hann", True, False, None, None, False, 7),
    ("hann_odd", None, 5, 2, None, "hann", True, False, None, None, False, 6),
    ("short_window", None, 6, 2, 4, "hann", True, False, None, None, False, 6),
    ("rect_default", None, 4, None, None, None, True, False, None, None, False, 5),
    ("no_center", None, 4, 1, None, "lifted", False, False, None, None, False, 6),
    ("normalized", None, 4, 2, None, "hann", True, True, None, None, False, 6),
    ("twosided_real_out", None, 4, 1, None, "hann", True, False, False, None, False, 6),
    ("twosided_complex_out", None, 5, 2, None, "hann", True, False, None, None, True, 5),
    ("length_trim", None, 4, 1, None, "hann", True, False, None, 4, False, 7),
    ("length_pad", None, 4, 1, None, "hann", True, False, None, 12, False, 7),
    ("length_no_center", None, 4, 2, None, "lifted", False, False, None, 9, False, 4),
    ("batch", 2, 4, 1, None, "hann", True, False, None, None, False, 6),
    ("batch_complex_normalized", 2, 4, 1, None, "lifted", False, True, False, None, True, 5),
]


def window(kind: str | None, n: int) -> np.ndarray | None:
    """``torch.hann_window(n, dtype=float64)``, or it lifted by 0.25 (nonzero at the ends, so
    the overlap-added window never vanishes without ``center``), or None."""
    if kind is None:
        return None
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)
    return hann if kind == "hann" else 0.25 + hann


def stft_data(k: int, shape: tuple[int, ...], cplx: bool, out_shape: tuple[int, ...] | None = None):
    """Case ``k``'s signal; with ``out_shape``, also its projection ``P`` and loss weights ``W``."""
    rng = np.random.default_rng(100 + k)
    x = rng.standard_normal(shape)
    if cplx:
        x = x + 1j * rng.standard_normal(shape)
    if out_shape is None:
        return x
    P = rng.standard_normal(out_shape) + 1j * rng.standard_normal(out_shape)
    return x, P, rng.uniform(0.5, 1.5, out_shape)


def istft_data(k: int, shape: tuple[int, ...], out_shape: tuple[int, ...] | None = None):
    """Case ``k``'s spectrum; with ``out_shape``, also the loss weights ``W``."""
    rng = np.random.default_rng(200 + k)
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return z if out_shape is None else (z, rng.uniform(0.5, 1.5, out_shape))


def istft_input_shape(batch: int | None, n_fft: int, onesided: bool | None, return_complex: bool,
                      n_frames: int) -> tuple[int, ...]:
    one = (not return_complex) if onesided is None else onesided
    return ((batch,) if batch else ()) + ((n_fft // 2 + 1) if one else n_fft, n_frames)
