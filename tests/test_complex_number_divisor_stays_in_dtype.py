"""Dividing a complex64 tensor by a Python complex number keeps complex64 in backward and forward mode.

A Python number is weakly typed: ``z / (2 - 1j)`` of a complex64 ``z`` is complex64, and so must be
every array its gradient and tangent are made of.  ``Div``'s derivative took a Python ``complex`` for
an array (only ``int``, ``float`` and ``bool`` were numbers there): the singular-point mask turned it
into a 0-d complex128 array, and ``g / that`` was complex128 -- a hidden upcast (twice the memory and
time on a GPU), cast back only at the end.  Found by a red-team probe running every op with a Python
complex operand on the ``strict-f32`` device, which refuses any 64-bit array; ``x.mean() / c``,
``fft(x) / c``, ``x.div_(c)`` and ``x / 2j`` all met it.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

Z = [0.5 + 1j, -1.0 + 0.25j, 2.0 - 0.5j]
QUOTIENTS = {
    "z / c": lambda z: z / (2 - 1j),
    "true_divide": lambda z: mg.true_divide(z, 2 - 1j),
    "z / 2j": lambda z: z / 2j,
    "real / c": lambda z: z.real / (2 - 1j),
    "mean / c": lambda z: z.mean() / (2 - 1j),
    "fft / c": lambda z: mg.fft.fft(z) / (2 - 1j),
    "div_": lambda z: (z * 1).div_(2 - 1j),
}


@pytest.mark.parametrize("name", sorted(QUOTIENTS))
def test_gradient_and_tangent_stay_complex64_on_the_float32_device(name):
    f = QUOTIENTS[name]
    z = mg.tensor(Z, dtype=mg.complex64, device="strict-f32", requires_grad=True)
    y = f(z)
    (g,) = mg.grad((y.real + 2 * y.imag).sum(), [z])
    _, t = mg.func.jvp(f, (z.detach(),), (mg.ones_like(z),))
    assert g.dtype == mg.complex64 and t.dtype == y.dtype
    # the same numbers as on the CPU: d/dz (z / c) = 1 / c, so g = w conj(1 / c) summed as the op says
    zc = mg.tensor(Z, dtype=mg.complex64, requires_grad=True)
    yc = f(zc)
    (gc,) = mg.grad((yc.real + 2 * yc.imag).sum(), [zc])
    np.testing.assert_allclose(g.cpu().numpy(), gc.numpy(), rtol=1e-6)
    np.testing.assert_allclose(t.cpu().numpy(), mg.func.jvp(f, (zc.detach(),), (mg.ones_like(zc),))[1].numpy(),
                               rtol=1e-6)


def test_a_zero_complex_divisor_keeps_its_infinite_gradient():
    z = mg.tensor([1.0 + 0j, 0j], dtype=mg.complex64, requires_grad=True)
    (g,) = mg.grad((z / 0j).real.sum(), [z])
    assert g.dtype == mg.complex64 and np.isinf(g.numpy()[0].real)
