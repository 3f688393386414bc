"""The gradients of ``log``, ``log2``, ``log10`` and ``sqrt`` at a complex 0 are PyTorch's ``g / conj(f'(z)^-1)``
quotients: infinite, never NaN.

torch 2.13: ``z = torch.zeros(1, dtype=torch.complex128, requires_grad=True); torch.log(z).backward(
torch.tensor([1 - 0.5j], dtype=torch.complex128)); z.grad`` -> ``[inf-infj]`` (``g / conj(z)``; ``sqrt``'s
``g / (2 conj(sqrt(z)))``, ``log2``'s ``g / conj(z ln 2)``), and ``torch.func.jvp(torch.log, (z,), (t,))``'s
tangent ``t / z`` the same.  The engine multiplied by the reciprocal, ``inf+nanj`` at a complex 0, and answered
``nan+nanj``.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg

OPS = (mg.log, mg.log2, mg.log10, mg.sqrt)
CASES = [("cpu", mg.complex128), ("cpu", mg.complex64), ("strict", mg.complex128), ("strict-f32", mg.complex64)]


@pytest.mark.parametrize("device, dtype", CASES)
@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
def test_reverse_mode_at_a_complex_zero_is_infinite(op, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    z = mg.tensor([0j, 1 + 1j], dtype=dtype, device=device, requires_grad=True)
    op(z).backward(mg.tensor([1 - 0.5j, 2 + 3j], dtype=dtype, device=device))
    got = z.grad.numpy()
    assert got.dtype == (np.complex128 if dtype == mg.complex128 else np.complex64)
    assert got[0].real == np.inf and got[0].imag == -np.inf  # torch 2.13: inf-infj
    assert np.isfinite(got[1])


@pytest.mark.parametrize("device, dtype", CASES)
@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
def test_forward_mode_at_a_complex_zero_is_infinite(op, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401

    z = mg.tensor([0j, 1 + 1j], dtype=dtype, device=device)
    _, t = mg.func.jvp(op, (z,), (mg.tensor([1 - 0.5j, 1j], dtype=dtype, device=device),))
    got = t.numpy()
    assert got[0].real == np.inf and got[0].imag == -np.inf  # torch 2.13's t / z: inf-infj
    assert np.isfinite(got[1])


def test_a_zero_upstream_gradient_still_gives_zero_and_the_values_elsewhere_are_unchanged():
    # the engine's singular rule (divided_by_local): a zero g at the pole gives 0, so second derivatives stay exact
    z = mg.tensor([0j, 1 + 1j, -2 + 0.5j], dtype=mg.complex128, requires_grad=True)
    g = np.array([0j, 1 - 0.5j, 2 + 3j])
    mg.log(z).backward(mg.tensor(g))
    zz = np.array([0j, 1 + 1j, -2 + 0.5j])
    np.testing.assert_array_equal(z.grad.numpy()[0], 0j)
    np.testing.assert_allclose(z.grad.numpy()[1:], g[1:] / np.conj(zz[1:]), rtol=1e-15)
    z.grad = None
    mg.sqrt(z).backward(mg.tensor(g))
    np.testing.assert_allclose(z.grad.numpy()[1:], g[1:] / (2 * np.conj(np.sqrt(zz[1:]))), rtol=1e-15)
