"""Complex numbers in the public API: ``mg.real``, ``mg.imag``, ``mg.conj``, ``mg.angle``,
``mg.complex``, ``mg.polar``, ``mg.view_as_real``, ``mg.view_as_complex``.

The gradient convention (PyTorch's: ``z.grad = dL/dRe z + i dL/dIm z``) and
why it is the one that makes gradient descent work are in docs/complex.md.
On a real tensor these follow NumPy: ``real`` and ``conj`` return it, and
``imag`` is a zero constant.
"""

from __future__ import annotations

from typing import Any

from ..backend import get_default_dtype, scalar_type_name
from ..ops import complex_numbers as _cx
from ..ops.elementwise import RealAngle
from ..tape import apply
from ..tensor import Tensor
from .arguments import as_tensor, broadcast_shapes
from .elementwise import cos, multiply, sin, where
from .errors import WrongTensorKind

_REAL_ANGLE = RealAngle()  # (no attributes: one instance serves every call)

__all__ = ["real", "imag", "conj", "is_complex", "complex", "complex_from_parts", "angle", "polar",
           "view_as_real", "view_as_complex"]


def is_complex(x: Any) -> bool:
    """True if ``x`` is a tensor of a complex dtype (``complex64`` or ``complex128``)."""
    return as_tensor(x).dtype.kind == "c"


def real(x: Any) -> Tensor:
    """The real part (``x`` itself for a real tensor)."""
    x = as_tensor(x)
    return apply(_cx.Real(), x) if x.dtype.kind == "c" else x


def imag(x: Any) -> Tensor:
    """The imaginary part (for a real tensor: zeros, a constant, as NumPy's ``imag``).

    The zeros of a real tensor are no part of it, so a write into them would be lost
    (``x.imag.fill_(1)`` changing nothing); as NumPy's they cannot be written: one zero
    broadcast to ``x``'s shape, read-only (PyTorch refuses ``x.imag`` of a real tensor).
    """
    x = as_tensor(x)
    if x.dtype.kind == "c":
        return apply(_cx.Imag(), x)
    xp = x._device.xp
    return Tensor._wrap(xp.broadcast_to(xp.zeros((), dtype=x._data.dtype), x._data.shape), None, x._device)


def conj(x: Any) -> Tensor:
    """The complex conjugate (``x`` itself for a real tensor)."""
    x = as_tensor(x)
    return apply(_cx.Conj(), x) if x.dtype.kind == "c" else x


def complex(real: Any, imag: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    """The complex tensor ``real + i imag`` from two real tensors of one dtype (broadcast):
    ``complex64`` from float32, ``complex128`` from float64 (PyTorch's ``torch.complex``)."""
    re, im = _float_parts("complex", ("real", "imag"), real, imag)
    return apply(_cx.Complex(), re, im)


def _float_parts(name: str, names: tuple[str, str], first: Any, second: Any) -> tuple[Tensor, Tensor]:
    """Two float tensors of one dtype, broadcastable, as PyTorch's ``complex`` and ``polar`` take
    them (an integer or a mixed pair is their error, not a silent promotion)."""
    a, b = as_tensor(first), as_tensor(second, like=first if isinstance(first, Tensor) else None)
    for what, t in zip(names, (a, b)):
        if t.dtype.kind != "f":
            raise WrongTensorKind(f"{name}: Expected both inputs to be Half, Float or Double tensors but got "
                                  f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)} "
                                  f"({what} must be a float tensor, got {t.dtype})")
    if a.dtype != b.dtype:
        raise WrongTensorKind(f"{name}: Expected object of scalar type {scalar_type_name(a.dtype)} but got scalar "
                              f"type {scalar_type_name(b.dtype)} for second argument ({names[0]} and {names[1]} "
                              "must have the same dtype)")
    broadcast_shapes(name, a.shape, b.shape)
    return a, b


def complex_from_parts(re: Any, im: Any) -> Tensor:
    """The differentiable twin of the ``complex_from_parts`` kernel (``xp.complex_from_parts``
    in a backward that builds a graph)."""
    return apply(_cx.Complex(), as_tensor(re), as_tensor(im))


def angle(x: Any) -> Tensor:
    """The argument (phase) ``atan2(Im x, Re x)`` in ``(-pi, pi]``, in radians; for a real
    tensor ``pi`` where it is negative, NaN where it is NaN and 0 elsewhere (a constant, as
    PyTorch's ``angle``: recorded with gradient 0, so ``x.grad`` is 0, not an error)."""
    x = as_tensor(x)
    if x.dtype.kind == "c":
        return apply(_cx.Angle(), x)
    if x.dtype.kind == "f":  # recorded, gradient 0, as PyTorch's
        return apply(_REAL_ANGLE, x)
    pi = x._device.xp.asarray(3.141592653589793, dtype=x.dtype if x.dtype.kind == "f" else get_default_dtype())
    phase = where(x.detach() < 0, Tensor._wrap(pi, None, x._device), 0.0 * pi)
    return where(x.detach() != x.detach(), float("nan"), phase) if x.dtype.kind == "f" else phase


def polar(abs: Any, angle: Any) -> Tensor:  # noqa: A002 - PyTorch's names
    """The complex tensor ``abs * (cos(angle) + i sin(angle))`` (PyTorch's ``torch.polar``): float
    tensors of one dtype, as :func:`complex`'s parts."""
    abs, angle = _float_parts("polar", ("abs", "angle"), abs, angle)
    return complex(multiply(abs, cos(angle)), multiply(abs, sin(angle)))


def view_as_real(z: Any) -> Tensor:
    """A complex tensor as floats with a last axis of two: ``(..., 2)`` (real, imaginary).
    Differentiable, and a view as PyTorch's: a write into it is a write into ``z``."""
    z = as_tensor(z)
    if z.dtype.kind != "c":
        raise WrongTensorKind(f"view_as_real is only supported for complex tensors, got {z.dtype}")
    return apply(_cx.ViewAsReal(), z)


def view_as_complex(x: Any) -> Tensor:
    """The inverse of :func:`view_as_real`: floats of shape ``(..., 2)`` as complex numbers,
    a view as PyTorch's (a write into it is a write into ``x``)."""
    x = as_tensor(x)
    if x.dtype.kind != "f":
        raise WrongTensorKind("view_as_complex is only supported for half, float and double tensors, but got a "
                              f"tensor of scalar type: {scalar_type_name(x.dtype)}")
    if not x.ndim:
        raise WrongTensorKind("view_as_complex: Input tensor must have one or more dimensions")
    if x.shape[-1] != 2:
        raise WrongTensorKind(f"view_as_complex: Tensor must have a last dimension of size 2, got shape {x.shape}")
    return apply(_cx.ViewAsComplex(), x)
