"""Tensor methods are PyTorch's spellings, with PyTorch's answers where NumPy's differ.

``x.sign()`` of a complex tensor is PyTorch's refusal ("Unlike NumPy, ... use sgn"), where it had
returned NumPy's ``z / |z|`` -- that is ``x.sgn()``, which stays; ``x.round()`` of a complex tensor
is PyTorch's refusal of its kernel; ``x.moveaxis(0, -1)`` of a 0-d tensor is the tensor, as
``x.movedim`` (ndarray has no ``moveaxis`` method to follow).  The functions keep NumPy's meanings:
``mg.sign(z)`` is ``z / |z|``.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

COMPLEX = {mg.float64: mg.complex128, mg.float32: mg.complex64}


def host(t):
    return mg.backend.to_host(t._data)


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_sign_of_a_complex_tensor_is_refused_and_sgn_answers(device, dtype):
    z = mg.tensor([3 + 4j, 0j, -2j], dtype=COMPLEX[dtype], device=device)
    for call in (lambda: z.sign(), lambda: z.clone().sign_()):
        with pytest.raises(RuntimeError, match="use sgn"):
            call()
    want = np.array([0.6 + 0.8j, 0j, -1j])
    assert np.allclose(host(z.sgn()), want) and np.allclose(host(mg.sign(z)), want)
    x = mg.tensor([-2.0, 0.0, float("nan"), 5.0], dtype=dtype, device=device)
    assert np.array_equal(host(x.sign()), [-1.0, 0.0, 0.0, 1.0])
    assert np.array_equal(host(x.sgn()), [-1.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_round_method_of_a_complex_tensor_is_refused(device, dtype):
    z = mg.tensor([1.4 + 2.6j], dtype=COMPLEX[dtype], device=device)
    for call in (lambda: z.round(), lambda: z.round(decimals=1), lambda: z.clone().round_()):
        with pytest.raises(NotImplementedError, match="not implemented for 'Complex"):
            call()
    x = mg.tensor([1.5, 2.5, -0.4], dtype=dtype, device=device)
    assert np.array_equal(host(x.round()), [2.0, 2.0, -0.0])


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_moveaxis_method_of_a_zero_d_tensor_is_the_tensor(device, dtype):
    x = mg.tensor(3.0, dtype=dtype, device=device, requires_grad=True)
    for source, destination in [(0, -1), (-1, 0), ((0,), (0,))]:
        y = x.moveaxis(source, destination)
        assert y.shape == () and host(y) == 3.0
    with pytest.raises(IndexError):
        x.moveaxis(1, 0)
    (x.moveaxis(0, 0) * 2).backward()
    assert host(x.grad) == 2.0
    m = mg.arange(6, dtype=dtype, device=device).reshape(2, 3)
    assert np.array_equal(host(m.moveaxis(0, 1)), np.arange(6).reshape(2, 3).T)
