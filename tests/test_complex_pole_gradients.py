"""The gradients of ``atan``, ``atanh`` and ``log1p`` at their complex poles are PyTorch's quotients
``g / conj(f'(z)^-1)``: infinite, never NaN.

torch 2.13, each ``z.grad`` after ``f(z).backward(torch.tensor([1 - 0.5j, 1 - 0.5j]))``:
``atan`` at ``z = [1j, -1j]`` -> ``[inf-infj, inf-infj]`` (``g / conj(1 + z^2)``); ``atanh`` at ``[1, -1]`` the same
(``g / conj(1 - z^2)``); ``log1p`` at ``-1`` -> ``inf-infj`` (``g / conj(1 + z)``); ``torch.func.jvp``'s tangents the
same quotients.  The engine multiplied by the reciprocal, ``inf+nanj`` at a complex 0: ``nan+nanj``.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg

CASES = [("cpu", mg.complex128), ("cpu", mg.complex64), ("strict", mg.complex128), ("strict-f32", mg.complex64)]
POLES = [(mg.atan, [1j, -1j]), (mg.atanh, [1 + 0j, -1 + 0j]), (mg.log1p, [-1 + 0j, -1 + 0j])]


@pytest.mark.parametrize("device, dtype", CASES)
@pytest.mark.parametrize("op, poles", POLES, ids=lambda p: getattr(p, "__name__", "poles"))
def test_both_modes_are_infinite_at_a_complex_pole(op, poles, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    z = mg.tensor(poles + [0.5 + 0.25j], dtype=dtype, device=device, requires_grad=True)
    op(z).backward(mg.tensor([1 - 0.5j] * 3, dtype=dtype, device=device))
    got = z.grad.numpy()
    assert got.dtype == (np.complex128 if dtype == mg.complex128 else np.complex64)
    assert (got[:2].real == np.inf).all() and (got[:2].imag == -np.inf).all()     # torch 2.13: inf-infj
    assert np.isfinite(got[2])
    _, t = mg.func.jvp(op, (z.detach(),), (mg.tensor([1 - 0.5j] * 3, dtype=dtype, device=device),))
    tangent = t.numpy()
    assert (np.isinf(tangent[:2].real)).all() and not np.isnan(tangent[:2]).any()
    assert np.isfinite(tangent[2])


def test_real_inputs_are_unchanged():
    x = mg.tensor([0.5, 1e30, -3.0], dtype=mg.float32, requires_grad=True)
    mg.atan(x).backward(mg.ones(3, dtype=mg.float32))
    np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + np.array([0.5, 1e30, -3.0], dtype=np.float64) ** 2),
                               rtol=1e-6, atol=1e-30)
    assert x.grad.dtype == mg.float32
    y = mg.tensor([1.0, 0.5], dtype=mg.float64, requires_grad=True)
    mg.atanh(y).backward(mg.tensor([0.0, 1.0], dtype=mg.float64))   # a zero g at the pole: 0 (the singular rule)
    assert y.grad.tolist() == [0.0, 1 / 0.75]
