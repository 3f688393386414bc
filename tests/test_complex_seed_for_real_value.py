"""A complex gradient or tangent handed in for a *real* value is refused, not cut to its real part.

``y.backward(gradient=g)``, ``mg.autograd.grad(y, x, grad_outputs=g)`` with a complex ``g``
for a real ``y``, and ``forward_ad.make_dual(x, v)`` with a complex ``v`` for a real ``x``,
used to cast ``g`` (``v``) to the real dtype and go on with the imaginary part silently
dropped.  torch 2.13 refuses the first two ("For complex Tensors, both grad_output and output
are required to have the same dtype", a RuntimeError); ``mg.func.jvp``/``vjp`` already refused
both (a TypeError, tests/test_transform_seams.py), and ``make_dual`` now does too (torch would
carry a complex tangent on a real primal, which the engine has no place for).

What stays accepted, exactly: a complex gradient of another precision for a complex output
(cast, as torch's), and a real gradient for a complex output (its imaginary part is 0; torch
refuses that one, but nothing is lost).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict", "strict-f32"]
X = np.array([1.0, 2.0, 3.0])
G = np.array([1.0 + 2.0j, -0.5 + 0.25j, 3.0 - 1.0j])


def _real_leaf(dtype, device):
    return mg.tensor(X, dtype=dtype, device=device, requires_grad=True)


def _complex(dtype, device):
    return mg.tensor(G, dtype="complex64" if dtype == "float32" else "complex128", device=device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("how", ["backward", "grad", "grad create_graph"])
def test_a_complex_gradient_for_a_real_output_is_refused(how, dtype, device):
    if device == "strict-f32" and dtype == "float64":
        pytest.skip("strict-f32 holds no float64")
    x = _real_leaf(dtype, device)
    y = mg.sin(x) * 2
    g = _complex(dtype, device)
    with pytest.raises(RuntimeError, match="both grad_output and output are required to have the same dtype"):
        if how == "backward":
            y.backward(g)
        else:
            mg.autograd.grad(y, x, grad_outputs=g, create_graph=how.endswith("create_graph"))
    assert x.grad is None


@pytest.mark.parametrize("device", DEVICES)
def test_a_complex_gradient_for_a_real_output_among_several_is_refused(device):
    x = _real_leaf("float32", device)
    z = x * (1 + 1j)
    r = x * 3
    with pytest.raises(RuntimeError, match=r"grad_output\[1\] has a dtype of complex64"):
        mg.autograd.grad([z, r], [x], grad_outputs=[_complex("float32", device), _complex("float32", device)])
    # the complex output takes its complex gradient: d/dx Re(conj(g) (1 + i) x) = Re(g) + Im(g)
    (gx,) = mg.autograd.grad([z, r], [x], grad_outputs=[_complex("float32", device), mg.ones(3, device=device)])
    np.testing.assert_allclose(gx.numpy(), G.real + G.imag + 3, rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_that_lose_nothing_are_still_taken(device):
    x = mg.tensor(G, dtype="complex64", device=device, requires_grad=True)
    (x * 2).backward(mg.tensor(X, dtype="float32", device=device))  # a real gradient: imaginary part 0
    np.testing.assert_allclose(x.grad.numpy(), 2 * X)
    assert x.grad.dtype == mg.complex64
    if device != "strict-f32":
        x.grad = None
        (x * 2).backward(mg.tensor(G, dtype="complex128", device=device))  # cast to complex64, as torch's
        np.testing.assert_allclose(x.grad.numpy(), 2 * G, rtol=1e-6)
        assert x.grad.dtype == mg.complex64
    r = _real_leaf("float32", device)
    (r * 2).backward(mg.tensor([1, 2, 3], device=device))  # an integer gradient for a real output
    np.testing.assert_allclose(r.grad.numpy(), [2, 4, 6])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_make_dual_refuses_a_complex_tangent_for_a_real_primal(dtype, device):
    if device == "strict-f32" and dtype == "float64":
        pytest.skip("strict-f32 holds no float64")
    with fwAD.dual_level():
        with pytest.raises(TypeError, match="tangent is complex .* primal is real"):
            fwAD.make_dual(mg.tensor(X, dtype=dtype, device=device), _complex(dtype, device))
        # a real tangent for a complex primal is exact: the tangent of z * z is 2 z v
        z = _complex(dtype, device)
        d = fwAD.make_dual(z, mg.tensor(X, dtype=dtype, device=device))
        np.testing.assert_allclose(fwAD.unpack_dual(d * d).tangent.numpy(), 2 * G * X, rtol=1e-6)
