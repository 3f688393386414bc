"""Discrete Fourier transforms: three ops, one per kind of transform.

=============  ==========================  ===================================
op             forward                     what it is, as a linear map
=============  ==========================  ===================================
``FFT``        ``fftn`` / ``ifftn``        complex to complex, ``y = c W x``
``RFFT``       ``rfftn``                   real to the half spectrum
``IRFFT``      ``irfftn``                  half spectrum to real
=============  ==========================  ===================================

``W`` is the DFT matrix (``W[j, k] = exp(-2 pi i jk / n)``, conjugated for
the inverse) and ``c`` the normalization: ``norm="backward"`` puts ``1/n`` on
the inverse, ``"forward"`` on the forward transform, ``"ortho"`` ``1/sqrt(n)``
on both.  Everything else in :mod:`minigrad_ckpt.fft` (``n``/``s`` cropping
and zero-padding, ``hfft``, ``fft2``, ...) is a composition of these ops and
the shape ops.

**Gradients** follow the convention of docs/complex.md: the gradient of a
linear map ``A`` is ``A^H g`` (the conjugate transpose applied to the upstream
gradient).  The adjoint of ``c W`` is ``c W^H``: the opposite transform with
the normalization moved to the other side (``"backward"`` and ``"forward"``
swap, ``"ortho"`` stays) -- so every backward is one FFT.

The real-input transforms are where care is needed (HIPS autograd shipped
wrong gradients here, autograd#185):

* ``rfft`` keeps ``n // 2 + 1`` of the ``n`` outputs, so ``A = crop . W``
  and ``A^H g = W^H pad(g)``: the upstream gradient is zero-padded to the
  full length and transformed back, and the input, being real, keeps the
  real part.  (``irfft(g)`` instead would assume the missing half mirrors
  the kept one and count it twice.)
* ``irfft`` reads a half spectrum and behaves as if the other half were its
  mirror image: every bin with a mirror (all but the DC bin and, for even
  ``n``, the Nyquist bin) enters the output twice, and of the DC and Nyquist
  bins only the real part is read.  Its gradient is therefore
  ``rfft(g)`` with the bins that have a mirror doubled -- and, because
  ``rfft`` of a real ``g`` has a real DC and Nyquist bin, the imaginary
  parts that ``irfft`` ignores get gradient 0, as they should.

Every transform is linear, so each ``jvp`` is the transform of the tangent.
"""

from __future__ import annotations

from .base import LinearOp

#: The normalization of the adjoint transform: the scale moves to the other direction.
ADJOINT_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


class _Transform(LinearOp):
    """What the three transforms share: the axes they transform and the normalization;
    a backward written for complex numbers; nothing saved (a linear map's gradient
    reads no input)."""

    abstract = True
    holomorphic = False

    axes: tuple[int, ...]
    norm: str

    save_inputs = False


class FFT(_Transform):
    """``fftn`` (or ``ifftn`` when ``inverse``) over ``axes``; sizes unchanged.

    A real input is transformed as a complex one with zero imaginary part; its
    gradient is the real part of the complex one (the engine keeps it).
    """

    inverse: bool

    def forward(self, xp, x):
        transform = xp.fft.ifftn if self.inverse else xp.fft.fftn
        return transform(x, axes=self.axes, norm=self.norm)

    def backward(self, xp, g, out, x):
        adjoint = xp.fft.fftn if self.inverse else xp.fft.ifftn
        return adjoint(g, axes=self.axes, norm=ADJOINT_NORM[self.norm])

    def reference(self, np, x):
        transform = np.fft.ifftn if self.inverse else np.fft.fftn
        return transform(x, axes=self.axes, norm=self.norm)


class RFFT(_Transform):
    """``rfftn`` of a real input over ``axes``: the last axis of ``axes`` (length ``n``)
    keeps ``n // 2 + 1`` frequencies."""

    n: int

    def forward(self, xp, x):
        return xp.fft.rfftn(x, axes=self.axes, norm=self.norm)

    def backward(self, xp, g, out, x):
        # A = crop . W: pad the gradient with the dropped frequencies (zeros), transform back
        last = self.axes[-1]
        widths = [(0, 0)] * g.ndim
        widths[last] = (0, self.n - g.shape[last])
        full = xp.pad(g, widths)
        return xp.real(xp.fft.ifftn(full, axes=self.axes, norm=ADJOINT_NORM[self.norm]))

    def reference(self, np, x):
        return np.fft.rfftn(x, axes=self.axes, norm=self.norm)


class IRFFT(_Transform):
    """``irfftn`` over ``axes`` with output length ``n`` on the last of them; the input
    has exactly ``n // 2 + 1`` entries there (``mg.fft.irfft`` crops or pads it first)."""

    n: int

    def forward(self, xp, x):
        sizes = [x.shape[a] for a in self.axes[:-1]] + [self.n]
        return xp.fft.irfftn(x, s=sizes, axes=self.axes, norm=self.norm)

    def backward(self, xp, g, out, x):
        spectrum = xp.fft.rfftn(g, axes=self.axes, norm=ADJOINT_NORM[self.norm])
        return mirrored_bins_doubled(xp, spectrum, self.axes[-1], self.n)

    def reference(self, np, x):
        sizes = [x.shape[a] for a in self.axes[:-1]] + [self.n]
        return np.fft.irfftn(x, s=sizes, axes=self.axes, norm=self.norm)


def mirrored_bins_doubled(xp, spectrum, axis, n):
    """``spectrum`` (a half spectrum of a length-``n`` signal along ``axis``) with every
    bin that has a mirror image -- all but DC and, for even ``n``, Nyquist -- doubled."""
    end = (n - 1) // 2 + 1  # one past the last bin with a mirror

    def part(start, stop):
        return spectrum[(slice(None),) * axis + (slice(start, stop),)]

    return xp.concatenate([part(0, 1), part(1, end) * 2, part(end, None)], axis=axis)
