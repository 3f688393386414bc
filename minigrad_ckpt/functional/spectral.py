"""``mg.stft`` and ``mg.istft``: PyTorch's short-time Fourier transform pair.

A short-time Fourier transform cuts a signal into overlapping frames ``hop_length``
apart, multiplies each by a window and Fourier-transforms it.  Every step is an
existing differentiable function, so gradients, jvps and derivatives of any order
come from the pieces -- there is no op of its own:

* **padding** (``center=True``): ``n_fft // 2`` samples on both sides, ``"constant"``
  by :func:`~minigrad_ckpt.functional.shape.pad`, ``"reflect"``, ``"replicate"`` and
  ``"circular"`` as a gather of the input at mirrored/clamped/wrapped positions;
* **framing**: one more gather, ``x[..., starts[:, None] + arange(n_fft)]``;
* **window and transform**: a product and ``mg.fft.rfft`` (or ``fft``);
* **overlap-add** (``istft``): ``index_add`` of the frames into the signal, the adjoint
  of the framing gather, divided by the overlap-added squared window (its envelope).

PyTorch's rules are kept: a window shorter than ``n_fft`` is zero-padded on both sides
(``left = (n_fft - win_length) // 2``), a missing window is rectangular, ``normalized``
means the orthonormal transform, and real input needs ``return_complex`` to be given
(``False`` answers the deprecated ``(..., 2)`` real layout, with PyTorch's warning).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..backend import host_numpy
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import fft as ft
from .arguments import as_tensor
from .complex_numbers import view_as_real
from .elementwise import divide, multiply
from .indexing import getitem, index_add
from .scatter import constant
from .shape import broadcast_to, pad, swapaxes

__all__ = ["stft", "istft"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


# ---------------------------------------------------------------------------
# Positions: padding as a gather, frames, overlap-add
# ---------------------------------------------------------------------------
def _padded_positions(length: int, p: int, mode: str) -> Any:
    """The input position each sample of the ``p``-padded signal copies (PyTorch's
    ``F.pad`` modes: reflect leaves the edge sample out of the mirror, replicate repeats
    it, circular wraps around)."""
    where = host_numpy.arange(-p, length + p)
    if mode == "reflect":
        if p >= length:
            raise RuntimeError(f"stft: Padding size should be less than the corresponding input dimension, but got: "
                               f"padding ({p}, {p}) of an input of length {length} (pad_mode='reflect')")
        where = host_numpy.abs(where)
        return host_numpy.where(where > length - 1, 2 * (length - 1) - where, where)
    if mode == "circular":
        if p > length:
            raise RuntimeError(f"stft: Padding value causes wrapping around more than once: padding ({p}, {p}) "
                               f"of an input of length {length} (pad_mode='circular')")
        return where % length
    return host_numpy.clip(where, 0, length - 1)  # replicate


def _center(x: Tensor, n_fft: int, pad_mode: str) -> Tensor:
    if pad_mode not in _PAD_MODES:
        raise NotImplementedError(f"stft: Unrecognised padding mode {pad_mode}")
    p = n_fft // 2
    if pad_mode == "constant":
        return pad(x, ((0, 0),) * (x.ndim - 1) + ((p, p),))
    return getitem(x, (Ellipsis, constant(_padded_positions(x.shape[-1], p, pad_mode), x)))


def _frame_positions(n_frames: int, hop: int, size: int, offset: int = 0) -> Any:
    """``(n_frames, size)`` positions: frame ``t`` reads ``offset + t * hop + k``."""
    return offset + hop * host_numpy.arange(n_frames)[:, None] + host_numpy.arange(size)[None, :]


def _padded_window(window: Tensor | None, win_length: int, n_fft: int, like: Tensor) -> Tensor:
    """The window zero-padded to ``n_fft`` with ``(n_fft - win_length) // 2`` zeros in front
    (a rectangular one of ``like``'s dtype when None, as PyTorch's)."""
    if window is None:  # ones of the input's real dtype: the product keeps the input's precision
        real_dtype = host_numpy.empty(0, dtype=like.dtype).real.dtype
        window = constant(like.device.xp.ones((win_length,), dtype=real_dtype), like)
    left = (n_fft - win_length) // 2
    return pad(window, ((left, n_fft - win_length - left),)) if win_length != n_fft else window


def _window_tensor(window: Any) -> Tensor | None:
    return None if window is None else as_tensor(window)


def _sizes(n_fft: int, hop_length: int | None, win_length: int | None) -> tuple[int, int]:
    return (n_fft // 4 if hop_length is None else int(hop_length)), (n_fft if win_length is None else int(win_length))


def _warn_rectangular(name: str, extra: str) -> None:
    warnings.warn(f"{name}: A window was not provided. A rectangular window will be applied,{extra} To suppress this "
                  "warning and use a rectangular window, explicitly set `window=mg.ones(n_fft)`.", UserWarning,
                  stacklevel=stacklevel_outside_the_engine())


# ---------------------------------------------------------------------------
# stft
# ---------------------------------------------------------------------------
def _check_stft(x: Tensor, window: Tensor | None, n_fft: int, hop: int, win_length: int) -> None:
    """PyTorch's checks, in its order (``length`` is the padded signal's)."""
    if x.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got {x.ndim}-D")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"stft: expected a tensor of floating point or complex values, got {x.dtype}")
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {list(window.shape)}")


def _wants_complex(x: Tensor, window: Tensor | None, return_complex: bool | None) -> bool:
    """PyTorch's rule: complex input or window answer complex; real ones need ``return_complex``
    said, and ``False`` is deprecated (a warning, then the ``(..., 2)`` real layout)."""
    if return_complex is None:
        if x.dtype.kind == "c" or (window is not None and window.dtype.kind == "c"):
            return True
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call mg.view_as_real on the complex output to recover the old return format.",
                      UserWarning, stacklevel=stacklevel_outside_the_engine())
    return bool(return_complex)


def _frames(x: Tensor, n_fft: int, hop: int, win_length: int, aligned: bool) -> Tensor:
    """``(..., n_frames, n_fft)`` frames of ``x``.  With ``align_to_window`` the frames are
    placed so that the (shorter) window's first sample falls on ``t * hop``."""
    if aligned and win_length < n_fft:
        left = (n_fft - win_length) // 2
        n_frames = 1 + (x.shape[-1] - win_length) // hop
        frames = getitem(x, (Ellipsis, constant(_frame_positions(n_frames, hop, win_length), x)))
        # the samples outside the window are multiplied by zero: pad instead of reading them
        return pad(frames, ((0, 0),) * (frames.ndim - 1) + ((left, n_fft - win_length - left),))
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    return getitem(x, (Ellipsis, constant(_frame_positions(n_frames, hop, n_fft), x)))


def stft(input: Any, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Any = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: bool | None = None, return_complex: bool | None = None,
         align_to_window: bool | None = None) -> Tensor:
    """The short-time Fourier transform of a ``(L,)`` or ``(B, L)`` signal: ``(B?, n_freq, n_frames)``.

    Frame ``t`` is ``x[t * hop_length : t * hop_length + n_fft]`` (of the signal padded by
    ``n_fft // 2`` on both sides with ``pad_mode`` when ``center``), times the window, Fourier
    transformed: ``n_fft // 2 + 1`` frequencies when ``onesided`` (the default for a real signal
    and window), ``n_fft`` otherwise.  ``hop_length`` defaults to ``n_fft // 4``, ``win_length`` to
    ``n_fft``; ``normalized`` multiplies by ``n_fft ** -0.5``.  Real input needs
    ``return_complex=True`` (``False``: the deprecated ``(..., 2)`` layout of real and imaginary
    parts), as ``torch.stft``.  Differentiable in the signal and the window, in both modes.
    """
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    x = as_tensor(input)
    window = _window_tensor(window)
    hop, win_length = _sizes(n_fft, hop_length, win_length)
    if center and x.ndim in (1, 2):
        x = _center(x, n_fft, pad_mode)
    _check_stft(x, window, n_fft, hop, win_length)
    complex_out = _wants_complex(x, window, return_complex)
    if window is None:
        _warn_rectangular("stft", " which is known to cause spectral leakage. Other windows such as mg.hann_window "
                          "or mg.hamming_window are recommended to reduce spectral leakage.")
    w = _padded_window(window, win_length, n_fft, x)
    frames = multiply(_frames(x, n_fft, hop, win_length, bool(align_to_window)), w)
    complex_fft = frames.dtype.kind == "c"
    if onesided is None:
        onesided = not complex_fft
    if complex_fft and onesided:
        raise RuntimeError("stft: Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = ft.rfft(frames, axis=-1, norm=norm) if onesided else ft.fft(frames, axis=-1, norm=norm)
    out = swapaxes(spectrum, -1, -2)
    return out if complex_out else view_as_real(out)


# ---------------------------------------------------------------------------
# istft
# ---------------------------------------------------------------------------
def _check_istft(z: Tensor, window: Tensor | None, n_fft: int, hop: int, win_length: int,
                 onesided: bool | None) -> bool:
    """PyTorch's checks, in its order; answers ``onesided`` (by default: whether the input has
    fewer than ``n_fft`` frequencies)."""
    if z.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if z.size == 0:
        raise RuntimeError("istft: input tensor cannot be empty.")
    if z.ndim < 2:
        raise IndexError(f"istft: expected a (n_freq, n_frames) or (B, n_freq, n_frames) tensor, got {z.ndim}-D")
    if z.ndim > 3:
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions, but got {z.ndim}")
    fft_size = z.shape[-2]
    onesided = fft_size != n_fft if onesided is None else bool(onesided)
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win_length:
        raise RuntimeError("istft: expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError("istft: expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError("istft: Invalid window shape. window has to be 1D and length of `win_length`")
    return onesided


def _inverse_frames(z: Tensor, n_fft: int, window: Tensor | None, normalized: bool, onesided: bool,
                    return_complex: bool) -> Tensor:
    """The frames back from their spectra, ``(..., n_frames, n_fft)``.  A real output reads only
    the first ``n_fft // 2 + 1`` frequencies of a two-sided input (PyTorch's ``irfft`` of them)."""
    frames_first = swapaxes(z, -1, -2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("istft: Cannot have onesided output if window or input is complex")
        return ft.ifft(frames_first, axis=-1, norm=norm)
    if window is not None and window.dtype.kind == "c":
        raise RuntimeError("istft: Complex windows are incompatible with return_complex=False")
    if not onesided:
        frames_first = getitem(frames_first, (Ellipsis, slice(0, n_fft // 2 + 1)))
    return ft.irfft(frames_first, n=n_fft, axis=-1, norm=norm)


def _overlap_add(frames: Tensor, hop: int) -> Tensor:
    """``(..., n_frames, n_fft)`` frames summed into ``(..., n_fft + hop * (n_frames - 1))``
    (the adjoint of framing: an ``index_add`` at the positions the frames were read from)."""
    n_frames, n_fft = frames.shape[-2:]
    where = constant(_frame_positions(n_frames, hop, n_fft), frames)
    return index_add(frames.shape[:-2] + (n_fft + hop * (n_frames - 1),), (Ellipsis, where), frames)


def _trimmed(y: Tensor, start: int, end: int) -> Tensor:
    return getitem(y, (Ellipsis, slice(start, end)))


def istft(input: Any, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
          window: Any = None, center: bool = True, normalized: bool = False, onesided: bool | None = None,
          length: int | None = None, return_complex: bool = False) -> Tensor:
    """The inverse of :func:`stft`: a ``(B?, length)`` signal from a complex ``(B?, n_freq, n_frames)``.

    Each frame is inverse-transformed, multiplied by the window and overlap-added; the sum is
    divided by the overlap-added squared window (the least-squares inverse of Griffin and Lim),
    which must not vanish anywhere (the NOLA condition: PyTorch's ``window overlap add min``
    error).  ``center`` trims ``n_fft // 2`` samples from the front (and, without ``length``,
    from the back); ``length`` trims, or pads with zeros, to that many samples.  A real output
    (the default) reads a one-sided spectrum; ``return_complex=True`` needs a two-sided one.
    """
    z = as_tensor(input)
    window = _window_tensor(window)
    hop, win_length = _sizes(n_fft, hop_length, win_length)
    onesided = _check_istft(z, window, n_fft, hop, win_length, onesided)
    if window is None:
        _warn_rectangular("istft", ".Please provide the same window used by stft to make the inversion lossless.")
    frames = _inverse_frames(z, n_fft, window, normalized, onesided, return_complex)
    w = _padded_window(window, win_length, n_fft, z)
    y = _overlap_add(multiply(frames, w), hop)
    n_frames = z.shape[-1]
    envelope = _overlap_add(broadcast_to(multiply(w, w), (n_frames, n_fft)), hop)
    expected = envelope.shape[-1]
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (expected - n_fft // 2 if center else expected)
    y, envelope = _trimmed(y, start, end), _trimmed(envelope, start, end)
    if envelope.size == 0:
        raise RuntimeError("istft: min(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    xp = envelope.device.xp
    if xp.scalar(xp.min(xp.abs(envelope._data))) < 1e-11:  # one explicit read, as PyTorch's .item()
        raise RuntimeError("istft: window overlap add min: 1 (the overlap-added squared window vanishes "
                           "somewhere: the window and hop_length break the NOLA condition)")
    y = divide(y, envelope)
    if end > expected:  # PyTorch: "The length of signal is shorter than the length parameter"
        warnings.warn("istft: The length of signal is shorter than the length parameter. Result is being padded "
                      "with zeros in the tail. Please check your center and hop_length settings.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())
        y = pad(y, ((0, 0),) * (y.ndim - 1) + ((0, end - expected),))
    return y
