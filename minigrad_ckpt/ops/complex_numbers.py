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
from .base import Op


@register_kernel
def complex_from_parts(xp, re, im):
    """``re + i im`` from two real arrays (broadcast), in the complex type of their precision."""
    return re + im * 1j


class Real(Op):
    """The real part of a complex input (a copy, not a view)."""

    save_inputs = False

    def forward(self, xp, z):
        return xp.real(z).copy()

    def backward(self, xp, g, out, z):
        return g  # the engine makes it complex: g + 0i

    def jvp(self, xp, tangents, out, z):
        return xp.real(tangents[0])

    def reference(self, np, z):
        return np.real(z)


class Imag(Op):
    """The imaginary part of a complex input (a copy, not a view)."""

    save_inputs = False

    def forward(self, xp, z):
        return xp.imag(z).copy()

    def backward(self, xp, g, out, z):
        # i g, built from its parts: no complex multiplication, whose own derivative would enter
        # the second derivative (create_graph=True)
        return xp.complex_from_parts(xp.zeros_like(g), g)

    def jvp(self, xp, tangents, out, z):
        return xp.imag(tangents[0])

    def reference(self, np, z):
        return np.imag(z)


class Conj(Op):
    """The complex conjugate."""

    save_inputs = False

    def forward(self, xp, z):
        return xp.conj(z)

    def backward(self, xp, g, out, z):
        return xp.conj(g)

    def jvp(self, xp, tangents, out, z):
        return xp.conj(tangents[0])

    def reference(self, np, z):
        return np.conj(z)


class Complex(Op):
    """``re + i im`` from two real tensors (``mg.complex``); each part's gradient is the
    matching part of the complex gradient."""

    save_inputs = False

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
        return re + 1j * im
