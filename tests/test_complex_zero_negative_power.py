"""A complex 0 to a power with a negative real part is PyTorch's ``inf+nanj`` (``|0 ** y|`` is infinite, its phase
undefined), not NumPy's ``nan+nanj``.

torch 2.13: ``torch.tensor([0j, 1+1j]) ** -1`` -> ``[inf+nanj, 0.5-0.5j]``; the same at 0 for ``** -2``,
``** -0.5``, ``** -2.5``, ``** (-1+1j)``, a tensor exponent ``[-1+0j]``, a real base ``tensor([0.]) ** tensor([-1+0j])``
and ``torch.tensor(0j) ** torch.tensor([-1.])``; ``0j ** 1j`` stays ``nan+nanj``, ``0j ** 2.5`` is 0, ``0j ** 0`` is 1.
The engine answered ``nan+nanj`` for every negative real part.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg


def _is_inf_nan(value):
    return np.isinf(value.real) and value.real > 0 and np.isnan(value.imag)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.complex128), ("cpu", mg.complex64), ("strict", mg.complex128),
                                           ("strict-f32", mg.complex64)])
@pytest.mark.parametrize("exponent", [-1, -2, -0.5, -2.5, -1 + 0j, -1 + 1j])
def test_zero_to_a_negative_power(exponent, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    z = mg.tensor([0j, complex(0.0, -0.0), 1 + 1j], dtype=dtype, device=device)
    got = (z ** exponent).numpy()
    assert got.dtype == (np.complex128 if dtype == mg.complex128 else np.complex64)
    assert _is_inf_nan(got[0]) and _is_inf_nan(got[1])
    np.testing.assert_allclose(got[2], (1 + 1j) ** exponent, rtol=1e-6)


def test_tensor_exponents_and_real_bases():
    got = (mg.tensor([0j, 0j, 0j], dtype=mg.complex128) ** mg.tensor([-1 + 0j, -2.5 + 0j, 2 + 0j])).numpy()
    assert _is_inf_nan(got[0]) and _is_inf_nan(got[1]) and got[2] == 0
    assert _is_inf_nan((mg.tensor([0.0]) ** mg.tensor([-1 + 0j])).numpy()[0])
    assert _is_inf_nan((0j ** mg.tensor([-1.0])).numpy()[0])


def test_other_exponents_at_zero_are_unchanged():
    z = mg.tensor([0j], dtype=mg.complex128)
    assert np.isnan((z ** 1j).numpy()[0].real)            # Re(y) = 0, y != 0: nan+nanj, as torch's
    assert (z ** 2.5).numpy()[0] == 0 and (z ** 0).numpy()[0] == 1
