"""``mg.fft``: NumPy's ``numpy.fft``, differentiable, with PyTorch's ``dim=`` spelling.
The functions live in :mod:`minigrad_ckpt.functional.fft`, which is also ``xp.fft``
of the differentiable namespace; this module is their public address (the table of
public names, :mod:`minigrad_ckpt.functional.public_names`, says which they are).  The
gradient convention for complex numbers is docs/complex.md's.

    import minigrad_ckpt as mg

    x = mg.tensor([1.0, 2.0, 0.5, -1.0], dtype="float64", requires_grad=True)
    spectrum = mg.fft.fft(x)
    energy = (spectrum.real ** 2 + spectrum.imag ** 2).sum()   # Parseval: n * sum(x ** 2)
    energy.backward()
    x.grad            # 2 * n * x = [8., 16., 4., -8.]
"""

from __future__ import annotations

from .functional import public_names as _public_names

globals().update(_public_names.exports(__name__))
__all__ = list(_public_names.exports(__name__))
