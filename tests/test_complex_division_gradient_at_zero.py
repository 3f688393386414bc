"""The gradient of ``x / y`` in ``x`` is PyTorch's quotient ``g / conj(y)``: infinite at a complex ``y == 0``,
never NaN, and exact where ``1 / y`` overflows.

torch 2.13: ``x = torch.tensor([1+1j, 2+0j], requires_grad=True); y = torch.tensor([0j, 1+1j]);
(x / y).backward(torch.tensor([1-0.5j, 1-0.5j])); x.grad`` -> ``[inf-infj, 0.75+0.25j]`` (and ``x / y.real``'s
``g / 0.0`` the same ``inf-infj``); ``torch.func.jvp``'s tangent ``t / y`` too; a real ``g = 5e-324`` over
``y = 5e-324`` gives 1.  The engine multiplied by the reciprocal ``1 / y`` (``inf+nanj`` at a complex 0):
``nan+nanj``.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg

CASES = [("cpu", mg.complex128), ("cpu", mg.complex64), ("strict", mg.complex128), ("strict-f32", mg.complex64)]


@pytest.mark.parametrize("device, dtype", CASES)
def test_the_numerator_gradient_at_a_zero_denominator_is_infinite(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor([1 + 1j, 2 + 0j], dtype=dtype, device=device, requires_grad=True)
    y = mg.tensor([0j, 1 + 1j], dtype=dtype, device=device)
    g = mg.tensor([1 - 0.5j, 1 - 0.5j], dtype=dtype, device=device)
    (x / y).backward(g)
    got = x.grad.numpy()
    assert got.dtype == (np.complex128 if dtype == mg.complex128 else np.complex64)
    assert got[0].real == np.inf and got[0].imag == -np.inf          # torch 2.13: inf-infj
    np.testing.assert_allclose(got[1], 0.75 + 0.25j, rtol=1e-6)      # g / conj(1 + 1j)
    x.grad = None
    (x / y.real).backward(g)                                          # a real zero denominator
    assert x.grad.numpy()[0].real == np.inf and x.grad.numpy()[0].imag == -np.inf


@pytest.mark.parametrize("device, dtype", CASES)
def test_the_tangent_at_a_zero_denominator_is_infinite(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401

    y = mg.tensor([0j, 1 + 1j], dtype=dtype, device=device)
    x = mg.tensor([1 + 1j, 2 + 0j], dtype=dtype, device=device)
    _, t = mg.func.jvp(lambda u: u / y, (x,), (mg.tensor([1 - 0.5j, 1j], dtype=dtype, device=device),))
    got = t.numpy()
    assert got[0].real == np.inf and got[0].imag == -np.inf          # torch 2.13's t / y: inf-infj
    np.testing.assert_allclose(got[1], 0.5 + 0.5j, rtol=1e-6)


def test_real_quotients_keep_the_singular_rule_and_a_subnormal_denominator():
    x = mg.tensor([1.0, 2.0], dtype=mg.float32, requires_grad=True)
    y = mg.tensor([0.0, 4.0], dtype=mg.float32, requires_grad=True)
    (x / y).backward(mg.tensor([0.0, 1.0], dtype=mg.float32))
    assert x.grad.dtype == mg.float32 and x.grad.tolist() == [0.0, 0.25]   # a zero g at the pole: 0
    x = mg.tensor([5e-324, 1.0], dtype=mg.float64, requires_grad=True)
    (x / mg.tensor([5e-324, 2.0], dtype=mg.float64)).backward(mg.tensor([5e-324, 1.0], dtype=mg.float64))
    assert x.grad.tolist() == [1.0, 0.5]    # torch 2.13: g / y = 1 (1 / y overflowed to inf: the gradient was inf)
