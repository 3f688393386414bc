"""On a branch cut the derivative is the one of the side the value is taken from.

``arcsin``, ``arccos``, ``arcsinh`` and ``arccosh`` of a complex number on their cuts (``arcsin(2 + 0i)``,
``arcsinh(-0 + 2i)``, ``arccosh(-2 - 0i)``) take their value from the side the sign of the zero part
names (C99's rule, NumPy's and PyTorch's).  Their derivatives were written as ``1 / sqrt(1 - z^2)``,
``1 / sqrt(z^2 + 1)`` and ``1 / (sqrt(z - 1) sqrt(z + 1))``: adding a real number to a complex one
adds ``+0`` to its imaginary part, which turns a ``-0`` into ``+0`` (and ``1 - z^2`` subtracts one from
``+0``), so the root came from the other side and the gradient was its negative -- ``arcsin`` of a
real 2 made complex had the gradient ``-1/sqrt(3)`` in its imaginary part where the values along the
real line rise at ``+1/sqrt(3)``.  (PyTorch 2.13 has the same sign error for ``asin``, ``acos`` and
``asinh``.)  Found by a red-team probe that compared every gradient on a cut with a one-sided central
difference.  Expected numbers: central differences of NumPy's own functions along the cut.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

H = 1e-6
CASES = [  # (function, NumPy's, points on its cut with each sign of zero, the cut's direction)
    ("arcsin", np.arcsin, [complex(2, 0.0), complex(-3, -0.0), complex(-2, 0.0), complex(3, -0.0)], 1),
    ("arccos", np.arccos, [complex(2, 0.0), complex(-3, -0.0), complex(-2, 0.0), complex(3, -0.0)], 1),
    ("arcsinh", np.arcsinh, [complex(0.0, -2), complex(-0.0, 3), complex(0.0, 2), complex(-0.0, -3)], 1j),
    ("arccosh", np.arccosh, [complex(-2, -0.0), complex(-0.5, -0.0), complex(-3, 0.0), complex(0.5, 0.0)], 1),
]


def _along_the_cut(np_fn, z, direction):
    """f'(z) from values on the cut itself, each zero part keeping its sign (built part by part:
    ``z + h`` would add ``+0`` to the imaginary part -- the very slip under test)."""
    if direction == 1:
        ahead, behind = complex(z.real + H, z.imag), complex(z.real - H, z.imag)
    else:
        ahead, behind = complex(z.real, z.imag + H), complex(z.real, z.imag - H)
    return (np_fn(np.complex128(ahead)) - np_fn(np.complex128(behind))) / (2 * H * direction)


@pytest.mark.parametrize("dtype", [mg.complex128, mg.complex64])
@pytest.mark.parametrize(("name", "np_fn", "points", "direction"), CASES)
def test_gradient_and_tangent_come_from_the_side_of_the_value(name, np_fn, points, direction, dtype):
    re = mg.tensor([z.real for z in points], dtype="float64")
    im = mg.tensor([z.imag for z in points], dtype="float64")
    z = mg.complex(re, im).to(dtype).requires_grad_(True)
    fn = getattr(mg, name)
    want = np.array([_along_the_cut(np_fn, p, direction) for p in points])
    w = np.array([1 + 0.5j, -0.25 + 1j, 2 - 1j, 0.5 + 0.5j])
    y = fn(z)
    loss = (y.real * mg.tensor(w.real) + y.imag * mg.tensor(w.imag)).sum()   # Re(conj(w) f(z))
    (g,) = mg.grad(loss, [z])
    tol = 1e-5 if dtype == mg.complex64 else 1e-8
    np.testing.assert_allclose(g.numpy(), w * np.conj(want), rtol=tol, atol=tol)   # z.grad = w conj(f')
    _, tangent = mg.func.jvp(fn, (z.detach(),), (mg.ones_like(z),))
    np.testing.assert_allclose(tangent.numpy(), want, rtol=tol, atol=tol)


def test_a_real_number_beyond_one_made_complex():
    """The everyday case: arcsin of a real 2 through a complex cast; Im arcsin(x + 0i) = arccosh(x)."""
    x = mg.tensor([2.0, 3.0], dtype="float64", requires_grad=True)
    mg.arcsin(x.to(mg.complex128)).imag.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 / np.sqrt(np.array([2.0, 3.0]) ** 2 - 1), rtol=1e-12)


def test_real_inputs_keep_their_derivatives():
    """The real formulas are untouched: infinite slope at +-1 is +inf (PyTorch's), not -inf."""
    x = mg.tensor([1.0, -1.0, 0.5], dtype="float64", requires_grad=True)
    (g,) = mg.grad(mg.arcsin(x).sum(), [x])
    assert g.numpy()[0] == np.inf and g.numpy()[1] == np.inf
    np.testing.assert_allclose(g.numpy()[2], 1 / np.sqrt(0.75))


@pytest.mark.parametrize("fn", ["arcsin", "arccos", "arcsinh", "arccosh"])
def test_a_0d_complex_gradient_is_the_cpus_bit_for_bit_on_the_strict_device(fn):
    """A 0-d derivative on the CPU is NumPy's complex128 scalar: it takes the array path, as the
    strict device's 0-d array does (it took NumPy's scalar math once Python complex numbers got a
    path of their own, and the complex product rounded differently: found by the strict op battery)."""
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

    grads = []
    for device in ("cpu", "strict"):
        x = mg.tensor(np.array(0.75 + 0.5j), device=device, requires_grad=True)
        (g,) = mg.autograd.grad(getattr(mg, fn)(x), x, mg.tensor(np.array(0.375 + 0.125j), device=device))
        grads.append(complex(g.cpu().item()))
    assert grads[0] == grads[1]
