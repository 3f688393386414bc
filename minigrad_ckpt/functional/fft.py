"""``mg.fft``: NumPy's ``numpy.fft``, differentiable, with PyTorch's ``dim=`` spelling.

Signatures are NumPy's (``n``/``s``, ``axis``/``axes``, ``norm`` one of
``"backward"`` -- the default --, ``"ortho"``, ``"forward"``); PyTorch's
``dim=`` may stand for ``axis=``/``axes=``.  Every transform is one of the
three ops of :mod:`minigrad_ckpt.ops.fft` after cropping or zero-padding the
input to ``n``/``s`` (slicing and ``pad``, both differentiable), so gradients,
jvps and derivatives of any order are exact; ``ops/fft.py`` explains the
gradients of the real-input transforms.

This module is also ``xp.fft`` of the differentiable namespace: an op's
backward that calls ``xp.fft.rfftn`` builds a graph when ``create_graph=True``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from ..backend import as_dtype, check_layout, get_default_dtype, get_device, host_numpy, scalar_type_name
from ..creation import pinned_as_asked
from ..ops import fft as _fft
from ..tape import apply
from ..tensor import Tensor
from .arguments import as_tensor, normalize_axis, number, one_axis
from .complex_numbers import conj
from .errors import RealInputRequired, SpectralArgumentError
from .math import astype, clone, getitem, pad, roll

_UNSET: Any = object()


# ---------------------------------------------------------------------------
# Arguments: norm, axis/axes (or dim), n/s
# ---------------------------------------------------------------------------
def _norm(name: str, norm: str | None) -> str:
    if norm is None:
        return "backward"
    if norm not in _fft.ADJOINT_NORM:
        raise SpectralArgumentError(f"{name}: Invalid normalization mode: {norm!r} "
                                    "(use 'backward', 'ortho', 'forward' or None)")
    return norm


def _pick(name: str, numpy_value: Any, dim: Any, default: Any, what: str) -> Any:
    """NumPy's ``axis``/``axes`` or PyTorch's ``dim`` (not both)."""
    if dim is _UNSET:
        return default if numpy_value is _UNSET else numpy_value
    if numpy_value is not _UNSET:
        raise TypeError(f"{name}: pass either {what}= or dim=, not both (they are the same argument)")
    return dim


def _whole_number(n: Any) -> int | None:
    """``n`` as a Python int where PyTorch's int argument takes it: an int, a NumPy integer, or an
    integer tensor of one element (its ``__index__``: ``fft(x, n=lengths.max())``); None otherwise
    (a bool, a float, a float tensor)."""
    if isinstance(n, bool):
        return None
    try:
        return operator.index(n)
    except (TypeError, RuntimeError, ValueError):
        return None


def _size(name: str, n: Any) -> int:
    k = _whole_number(n)
    if k is None or k < 1:
        raise SpectralArgumentError(f"{name}: Invalid number of data points ({n!r}) specified")
    return k


def _count(name: str, n: Any) -> int:
    """A number of samples for :func:`fftfreq`/:func:`rfftfreq`: 0 too (no frequencies; PyTorch's
    ``fftfreq(0)`` is empty and ``rfftfreq(0)`` is ``[nan]``, the 0 step times ``1 / 0``)."""
    k = _whole_number(n)
    if k is None or k < 0:
        raise SpectralArgumentError(f"{name}: Invalid number of data points ({n!r}) specified")
    return k


def _resize(x: Tensor, axis: int, n: int) -> Tensor:
    """``x`` cropped or zero-padded to length ``n`` along ``axis`` (as NumPy's ``n``/``s``)."""
    have = x.shape[axis]
    if have == n:
        return x
    if have > n:
        return getitem(x, (slice(None),) * axis + (slice(0, n),))
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, n - have)
    return pad(x, widths)


def _axes_and_sizes(name: str, x: Tensor, s: Any, axes: Any) -> tuple[tuple[int, ...], list[int | None]]:
    """NumPy's rules for ``s`` and ``axes``: ``axes`` defaults to the last ``len(s)``
    axes, or to every axis; ``s`` to the input's sizes (None here)."""
    if isinstance(s, (int, host_numpy.integer)):
        s = [s]  # one size, for the last axis (PyTorch's int s)
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
        if s is not None and len(s) > x.ndim:
            raise SpectralArgumentError(f"{name}: Got shape with {len(s)} values but input tensor only has {x.ndim} "
                                         "dimensions.")
    elif isinstance(axes, (int, host_numpy.integer)):
        axes = (axes,)
    axes = tuple(one_axis(a, x.ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise SpectralArgumentError(f"{name}: FFT dims must be unique, got {axes}")
    if s is None:
        for a in axes:  # an empty axis has no length to take (NumPy and PyTorch refuse it too)
            if x.shape[a] == 0:
                raise SpectralArgumentError(f"{name}: Invalid number of data points (0) specified")
        return axes, [None] * len(axes)
    s = list(s)
    if len(s) != len(axes):
        raise SpectralArgumentError(f"{name}: When given, dim and shape arguments must have the same length "
                                    f"({len(s)} and {len(axes)})")
    return axes, [None if k is None or k == -1 else _size(name, k) for k in s]


def _resized(x: Tensor, axes: Sequence[int], sizes: Sequence[int | None]) -> Tensor:
    for a, k in zip(axes, sizes):
        if k is not None:
            x = _resize(x, a, k)
    return x


def _real_input(name: str, x: Tensor) -> Tensor:
    if x.dtype.kind == "c":
        words = "real input tensor" if name in ("rfft", "ihfft") else "real-valued input tensor"
        raise RealInputRequired(f"{name} expects a {words}, but got {scalar_type_name(x.dtype)} "
                                "(use fft/fftn for complex input)")
    return _floating(x)


def _floating(x: Tensor) -> Tensor:
    """Integers and bools are transformed in the default float dtype, as PyTorch's
    (``torch.fft.fft(torch.arange(4))`` is complex64); NumPy would take float64."""
    return x if x.dtype.kind in "fc" else astype(x, get_default_dtype())


# ---------------------------------------------------------------------------
# The n-dimensional transforms (each a resize and one op)
# ---------------------------------------------------------------------------
def _c2c(name: str, a: Any, s: Any, axes: Any, norm: str | None, inverse: bool) -> Tensor:
    x = _floating(as_tensor(a))
    axes, sizes = _axes_and_sizes(name, x, s, axes)
    norm = _norm(name, norm)
    if not axes:  # no axis to transform: the input as a complex tensor, as PyTorch's (fftn(x, dim=()))
        return astype(x, host_numpy.result_type(x.dtype, host_numpy.complex64)) if x.dtype.kind != "c" else clone(x)
    x = _resized(x, axes, sizes)
    return apply(_fft.FFT(axes=axes, norm=norm, inverse=inverse), x)


def _some_axes(name: str, axes: tuple[int, ...]) -> tuple[int, ...]:
    """The real-to-complex and complex-to-real transforms need an axis to halve (PyTorch's error)."""
    if not axes:
        raise SpectralArgumentError(f"{name} must transform at least one axis")
    return axes


def fftn(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The n-dimensional discrete Fourier transform (over every axis by default)."""
    return _c2c("fftn", a, s, _pick("fftn", axes, dim, None, "axes"), norm, False)


def ifftn(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`fftn`."""
    return _c2c("ifftn", a, s, _pick("ifftn", axes, dim, None, "axes"), norm, True)


def _r2c(name: str, a: Any, s: Any, axes: Any, norm: str | None) -> Tensor:
    x = _real_input(name, as_tensor(a))
    axes, sizes = _axes_and_sizes(name, x, s, axes)
    x = _resized(x, _some_axes(name, axes), sizes)
    return apply(_fft.RFFT(axes=axes, norm=_norm(name, norm), n=x.shape[axes[-1]]), x)


def _c2r(name: str, x: Tensor, s: Any, axes: Any, norm: str | None) -> Tensor:
    axes, sizes = _axes_and_sizes(name, x, s, axes)
    last = _some_axes(name, axes)[-1]
    n = sizes[-1] if sizes[-1] is not None else 2 * (x.shape[last] - 1)
    if n < 1:
        raise SpectralArgumentError(f"{name}: Invalid number of data points ({n}) specified")
    x = _resized(x, axes[:-1], sizes[:-1])
    x = _resize(x, last, n // 2 + 1)
    return apply(_fft.IRFFT(axes=axes, norm=_norm(name, norm), n=n), x)


def rfftn(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`fftn` of a real input, keeping ``n // 2 + 1`` frequencies along the last axis
    (the others are the complex conjugates of these)."""
    return _r2c("rfftn", a, s, _pick("rfftn", axes, dim, None, "axes"), norm)


def irfftn(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`rfftn`: a real output, ``s[-1]`` long on the last axis
    (``2 * (m - 1)`` for an input with ``m`` frequencies there, by default)."""
    return _c2r("irfftn", _floating(as_tensor(a)), s, _pick("irfftn", axes, dim, None, "axes"), norm)


# ---------------------------------------------------------------------------
# One and two dimensions, and the Hermitian pair
# ---------------------------------------------------------------------------
def _one(name: str, axis: Any, dim: Any, n: Any) -> tuple[tuple[Any], Any]:
    ax = _pick(name, axis, dim, -1, "axis")
    return (ax,), (None if n is None else [_size(name, n)])


def fft(a: Any, n: int | None = None, axis: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The one-dimensional discrete Fourier transform along ``axis`` (``n`` crops or zero-pads)."""
    axes, s = _one("fft", axis, dim, n)
    return _c2c("fft", a, s, axes, norm, False)


def ifft(a: Any, n: int | None = None, axis: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`fft`."""
    axes, s = _one("ifft", axis, dim, n)
    return _c2c("ifft", a, s, axes, norm, True)


def rfft(a: Any, n: int | None = None, axis: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`fft` of a real input: the ``n // 2 + 1`` non-negative frequencies."""
    axes, s = _one("rfft", axis, dim, n)
    return _r2c("rfft", a, s, axes, norm)


def irfft(a: Any, n: int | None = None, axis: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`rfft`: ``n`` real outputs (``2 * (m - 1)`` by default)."""
    axes, s = _one("irfft", axis, dim, n)
    return _c2r("irfft", _floating(as_tensor(a)), s, axes, norm)


def hfft(a: Any, n: int | None = None, axis: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The FFT of a signal with Hermitian symmetry given by its first half: a real
    spectrum, ``n`` long (NumPy's definition: ``irfft(conj(a), n)`` with the norm swapped)."""
    axes, s = _one("hfft", axis, dim, n)
    return _c2r("hfft", conj(_floating(as_tensor(a))), s, axes, _fft.ADJOINT_NORM[_norm("hfft", norm)])


def ihfft(a: Any, n: int | None = None, axis: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`hfft`: ``conj(rfft(a, n))`` with the norm swapped."""
    axes, s = _one("ihfft", axis, dim, n)
    return conj(_r2c("ihfft", a, s, axes, _fft.ADJOINT_NORM[_norm("ihfft", norm)]))


def fft2(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`fftn` over the last two axes."""
    return _c2c("fft2", a, s, _pick("fft2", axes, dim, (-2, -1), "axes"), norm, False)


def ifft2(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`ifftn` over the last two axes."""
    return _c2c("ifft2", a, s, _pick("ifft2", axes, dim, (-2, -1), "axes"), norm, True)


def rfft2(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`rfftn` over the last two axes."""
    return _r2c("rfft2", a, s, _pick("rfft2", axes, dim, (-2, -1), "axes"), norm)


def irfft2(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`irfftn` over the last two axes."""
    return _c2r("irfft2", _floating(as_tensor(a)), s, _pick("irfft2", axes, dim, (-2, -1), "axes"), norm)


def hfftn(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """PyTorch's ``hfftn``: the n-dimensional FFT of a signal with Hermitian symmetry given by
    its half along the last axis -- a real output, ``s[-1]`` long there (``irfftn(conj(a))``
    with the norm swapped, as :func:`hfft` in one dimension; NumPy has no n-dimensional one)."""
    axes = _pick("hfftn", axes, dim, None, "axes")
    return _c2r("hfftn", conj(_floating(as_tensor(a))), s, axes, _fft.ADJOINT_NORM[_norm("hfftn", norm)])


def ihfftn(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`hfftn`: ``conj(rfftn(a))`` with the norm swapped (a real input; the
    last axis keeps ``n // 2 + 1`` frequencies)."""
    axes = _pick("ihfftn", axes, dim, None, "axes")
    return conj(_r2c("ihfftn", a, s, axes, _fft.ADJOINT_NORM[_norm("ihfftn", norm)]))


def hfft2(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`hfftn` over the last two axes."""
    axes = _pick("hfft2", axes, dim, (-2, -1), "axes")
    return _c2r("hfft2", conj(_floating(as_tensor(a))), s, axes, _fft.ADJOINT_NORM[_norm("hfft2", norm)])


def ihfft2(a: Any, s: Any = None, axes: Any = _UNSET, norm: str | None = None, *, dim: Any = _UNSET) -> Tensor:
    """:func:`ihfftn` over the last two axes."""
    axes = _pick("ihfft2", axes, dim, (-2, -1), "axes")
    return conj(_r2c("ihfft2", a, s, axes, _fft.ADJOINT_NORM[_norm("ihfft2", norm)]))


# ---------------------------------------------------------------------------
# Frequencies and shifts
# ---------------------------------------------------------------------------
def _frequencies(name: str, steps: Any, n: int, d: float, dtype: Any, device: Any,
                 requires_grad: bool = False) -> Tensor:
    """``steps / (n * d)`` as PyTorch makes it: the integer steps in ``dtype`` times the
    scale ``1 / (n * d)`` rounded to ``dtype`` (NumPy's float64 quotient rounded to float32
    afterwards differs in the last bit: 6/7 is 0.85714287, not torch's 0.8571429).  Half
    precision multiplies in float32 and rounds the product once, as torch's CPU does."""
    dt = host_numpy.dtype(get_default_dtype() if dtype is None else as_dtype(dtype))
    if dt.kind not in "fc":
        raise SpectralArgumentError(f"{name} requires a floating point or complex dtype, got {dt.name}")
    work = host_numpy.dtype(host_numpy.float32) if dt.kind == "f" and dt.itemsize < 4 else dt
    with host_numpy.errstate(divide="ignore", invalid="ignore"):  # n * d = 0: the scale is inf, as PyTorch's
        scale = host_numpy.float64(1.0) / host_numpy.float64(n * d)
        values = steps.astype(work) * work.type(dt.type(scale))
    dev = get_device(device)
    out = Tensor._wrap(dev.xp.asarray(values.astype(dt)), None, dev)
    if requires_grad:  # a leaf, as PyTorch's factory functions make it
        out.requires_grad = True
    return out


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None,
            requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """The sample frequencies of :func:`fft`'s outputs for ``n`` samples ``d`` apart
    (a constant, in the default float dtype unless ``dtype`` is given; a leaf that
    requires grad with ``requires_grad=True``): ``[0, 1, ..., -(n // 2), ..., -1] / (n * d)``."""
    check_layout("fft_fftfreq", layout)
    n, d = number("fftfreq", "n", n, "int"), number("fftfreq", "d", d, "float")
    n = _count("fftfreq", n)
    steps = host_numpy.arange(n)
    steps[(n + 1) // 2:] -= n
    made = _frequencies("fftfreq", steps, n, d, dtype, device, requires_grad)
    return made if pin_memory is False else pinned_as_asked("fft_fftfreq", made, pin_memory)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """The sample frequencies of :func:`rfft`'s outputs (the ``n // 2 + 1`` non-negative ones)."""
    check_layout("fft_rfftfreq", layout)
    n, d = number("rfftfreq", "n", n, "int"), number("rfftfreq", "d", d, "float")
    n = _count("rfftfreq", n)
    made = _frequencies("rfftfreq", host_numpy.arange(n // 2 + 1), n, d, dtype, device, requires_grad)
    return made if pin_memory is False else pinned_as_asked("fft_rfftfreq", made, pin_memory)


def _shift(name: str, x: Any, axes: Any, dim: Any, sign: int) -> Tensor:
    x = as_tensor(x)
    axes = _pick(name, axes, dim, None, "axes")
    if axes is None or isinstance(axes, (int, host_numpy.integer)):
        axes = normalize_axis(axes, x.ndim)
    shifts: dict[int, int] = {}
    for a in axes:  # a repeated axis shifts again, as PyTorch's (its roll adds the shifts)
        a = one_axis(a, x.ndim)
        shifts[a] = shifts.get(a, 0) + sign * (x.shape[a] // 2)
    if not shifts:
        return x
    return roll(x, tuple(shifts.values()), tuple(shifts))


def fftshift(x: Any, axes: Any = _UNSET, *, dim: Any = _UNSET) -> Tensor:
    """Move the zero frequency to the centre (over every axis by default)."""
    return _shift("fftshift", x, axes, dim, 1)


def ifftshift(x: Any, axes: Any = _UNSET, *, dim: Any = _UNSET) -> Tensor:
    """The inverse of :func:`fftshift`."""
    return _shift("ifftshift", x, axes, dim, -1)
