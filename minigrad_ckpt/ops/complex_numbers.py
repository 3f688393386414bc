"""Ops between complex numbers and their real parts: ``real``, ``imag``, ``conj``, ``complex``.

Gradients follow PyTorch's convention (docs/complex.md): the gradient of a
complex tensor ``z`` is ``dL/dRe(z) + i dL/dIm(z)`` for a real loss ``L``.  So
for ``r = Re(z)`` the gradient of ``z`` is the real ``g`` (``Im z`` does not move
``r``), for ``r = Im(z)`` it is ``i g``, and for ``w = conj(z)`` it is
``conj(g)``: none of the three is holomorphic, and none needs a Wirtinger
calculus to state -- each is a real-linear map, whose gradient is its
transpose on the pairs ``(Re, Im)``.
"""

from __future__ import annotations

from ..backend import register_kernel
from .base import LinearOp, Op

_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


@register_kernel
def complex_from_parts(xp, re, im):
    """``re + i im`` from two real arrays (broadcast), in the complex type of their precision.
    The parts are stored as they are, side by side and read as complex numbers: arithmetic
    loses them -- ``im * 1j`` is ``(im + 0i)(0 + 1i)``, whose real part ``inf * 0`` is NaN and
    whose parts ``+-0.0 + 0.0`` drop the sign of a zero, which put ``sqrt(-4 - 0i)`` on the wrong
    side of its branch cut (``2i``, PyTorch's ``-2i``).  (Half precision has no complex type of
    its size: it is widened to float32 first.)"""
    shape = xp.broadcast_shapes(re.shape, im.shape)
    parts = xp.result_type(re.dtype, im.dtype, "float32")
    pairs = xp.stack([xp.broadcast_to(re, shape).astype(parts), xp.broadcast_to(im, shape).astype(parts)], axis=-1)
    return pairs.view(_COMPLEX_OF[parts.name]).reshape(shape)


class _RealLinear(Op):
    """A map that is linear over the reals but not holomorphic (a part of a complex number,
    the conjugate, a complex number from its parts): its backward is written for complex
    numbers, and reads no input."""

    abstract = True
    holomorphic = False
    save_inputs = False


class Real(_RealLinear):
    """The real part of a complex input: a view, as PyTorch's and NumPy's (a write into
    ``z.real`` writes into ``z``; they share the version counter)."""

    is_view = True

    def forward(self, xp, z):
        return xp.real(z)

    def backward(self, xp, g, out, z):
        return g  # the engine makes it complex: g + 0i

    def jvp(self, xp, tangents, out, z):
        return xp.real(tangents[0])

    def reference(self, np, z):
        return np.real(z)


class Imag(_RealLinear):
    """The imaginary part of a complex input: a view, as :class:`Real`."""

    is_view = True

    def forward(self, xp, z):
        return xp.imag(z)

    def backward(self, xp, g, out, z):
        # i g, built from its parts: no complex multiplication, whose own derivative would enter
        # the second derivative (create_graph=True)
        return xp.complex_from_parts(xp.zeros_like(g), g)

    def jvp(self, xp, tangents, out, z):
        return xp.imag(tangents[0])

    def reference(self, np, z):
        return np.imag(z)


class Conj(_RealLinear, LinearOp):
    """The complex conjugate."""

    def forward(self, xp, z):
        return xp.conj(z)

    def backward(self, xp, g, out, z):
        return xp.conj(g)

    def reference(self, np, z):
        return np.conj(z)


def read_only(a):
    """``a`` (a copy standing where a view of another tensor's memory would be) marked
    read-only where the backend can mark it (NumPy's arrays): a write into it could not
    reach the memory it stands for, so it is refused, not silently lost."""
    try:
        a.flags.writeable = False
    except (AttributeError, ValueError):  # (CuPy's arrays have no such flag)
        pass
    return a


class ViewAsReal(_RealLinear):
    """``view_as_real``: complex ``(...)`` as real ``(..., 2)`` (real, imaginary) -- a view of
    the same memory, as PyTorch's, whatever ``z``'s strides: a number's two parts are always
    adjacent, so a new last axis of one element takes the smaller dtype (``z.mT``, ``z[:, ::2]``
    included; NumPy's ``view`` needs a contiguous last axis, which an axis of one is)."""

    is_view = True

    def forward(self, xp, z):
        try:
            return z[..., None].view(xp.real(z).dtype)
        except ValueError:  # a backend whose view needs more (a copy, read-only: a write must not be lost)
            return read_only(xp.stack([xp.real(z), xp.imag(z)], axis=-1))

    def backward(self, xp, g, out, z):
        return xp.complex_from_parts(g[..., 0], g[..., 1])

    def jvp(self, xp, tangents, out, z):
        return xp.stack([xp.real(tangents[0]), xp.imag(tangents[0])], axis=-1)

    def reference(self, np, z):
        return np.stack([np.real(z), np.imag(z)], axis=-1)



class ViewAsComplex(_RealLinear):
    """``view_as_complex``: real ``(..., 2)`` as complex ``(...)`` -- a view where the pairs
    are contiguous, the inverse of :class:`ViewAsReal`.  Pairs whose parts are not adjacent
    in memory have no complex view (PyTorch refuses them): they are copied, read-only, so
    that a write into the result is refused rather than lost."""

    is_view = True

    def forward(self, xp, x):
        complex_type = _COMPLEX_OF.get(x.dtype.name)
        if complex_type is not None:  # (float16 has no complex type of its size)
            try:
                return x.view(complex_type).reshape(x.shape[:-1])
            except ValueError:  # pairs with gaps between their parts
                pass
        return read_only(xp.complex_from_parts(x[..., 0], x[..., 1]))

    def backward(self, xp, g, out, x):
        return xp.stack([xp.real(g), xp.imag(g)], axis=-1)

    def jvp(self, xp, tangents, out, x):
        return xp.complex_from_parts(tangents[0][..., 0], tangents[0][..., 1])

    def reference(self, np, x):
        z = np.empty(x.shape[:-1], dtype=np.result_type(x.dtype, np.complex64))
        z.real, z.imag = x[..., 0], x[..., 1]  # each part as it is (x + 1j * y would mix inf into both)
        return z


class Complex(_RealLinear):
    """``re + i im`` from two real tensors (``mg.complex``); each part's gradient is the
    matching part of the complex gradient."""

    def forward(self, xp, re, im):
        return xp.complex_from_parts(re, im)

    def backward(self, xp, g, out, re, im):
        return xp.real(g), xp.imag(g)

    def jvp(self, xp, tangents, out, re, im):
        t_re, t_im = tangents
        if t_re is None:
            t_re = xp.zeros_like(t_im)
        if t_im is None:
            t_im = xp.zeros_like(t_re)
        return xp.complex_from_parts(t_re, t_im)

    def reference(self, np, re, im):
        # the parts stored as they are (re + 1j * im would make inf * 1j's real part NaN)
        re, im = np.broadcast_arrays(np.asarray(re), np.asarray(im))
        out = np.empty(re.shape, np.result_type(re.dtype, im.dtype, np.complex64))
        out.real, out.imag = re, im
        return out


def _unit_parts(xp, z):
    """``(Re z / |z|, Im z / |z|, |z|)``, with ``|z|`` replaced by 1 where ``z == 0`` (the parts are
    0 there: abs and angle take the subgradient 0).  ``|z|`` is ``hypot``'s, and the parts are
    divided by it before anything is squared: ``x * x + y * y`` overflows to inf beyond ``|z|`` of
    about 1e19 in float32 (1e154 in float64) and underflows to 0 below 1e-19 (1e-154), where the
    gradient of ``abs`` came out 0 -- ``z`` read as the origin -- instead of ``z / |z|``.

    At ``z == 0`` the parts are the constant 0, not ``x / 1``: under ``create_graph`` (and in
    forward mode) these parts are differentiated again, and ``x / 1`` would make the second
    derivative of ``abs`` at the origin ``1`` in each direction, where PyTorch's (and that of
    ``sgn``, the first derivative) is 0."""
    x, y = xp.real(z), xp.imag(z)
    r = xp.hypot(x, y)
    origin = r == 0
    r = xp.where(origin, 1, r)
    return xp.where(origin, 0, x / r), xp.where(origin, 0, y / r), r


class ComplexAbs(Op):
    """``|z|`` of a complex input (a real output).  The gradient is ``g z / |z|`` (the unit
    vector of ``z`` scaled by ``g``), 0 at ``z == 0``, as ``abs'(0) = 0`` for reals.  It is
    built from the real and imaginary parts, so its own derivatives involve real
    arithmetic only."""

    holomorphic = False  # its backward is written for complex numbers

    def forward(self, xp, z):
        return xp.abs(z)

    def backward(self, xp, g, out, z):
        u, v, _ = _unit_parts(xp, z)
        return xp.complex_from_parts(g * u, g * v)

    def jvp(self, xp, tangents, out, z):
        # d|z| = Re(conj(z) dz) / |z|
        u, v, _ = _unit_parts(xp, z)
        t = tangents[0]
        return u * xp.real(t) + v * xp.imag(t)

    def reference(self, np, z):
        return np.abs(z)


class Angle(Op):
    """The argument ``atan2(Im z, Re z)`` of a complex input, in ``(-pi, pi]``.  Its gradient
    is ``g (-Im z + i Re z) / |z|^2`` (``i g z / |z|^2``), 0 at ``z == 0``."""

    holomorphic = False  # its backward is written for complex numbers

    def forward(self, xp, z):
        return xp.arctan2(xp.imag(z), xp.real(z))

    def backward(self, xp, g, out, z):
        u, v, r = _unit_parts(xp, z)
        return xp.complex_from_parts(-g * v / r, g * u / r)

    def jvp(self, xp, tangents, out, z):
        # d angle = Im(conj(z) dz) / |z|^2
        u, v, r = _unit_parts(xp, z)
        t = tangents[0]
        return (u * xp.imag(t) - v * xp.real(t)) / r

    def reference(self, np, z):
        return np.angle(z)
