"""A complex parameter of any strides -- a transposed weight, ``w.mT``, a slice with a step -- is
stepped by every optimizer through its real view, as PyTorch's ``view_as_real`` does.  Before, the
real view was NumPy's ``view`` of the array itself, which needs a contiguous last axis: every
optimizer's step raised ``ValueError: To change to a dtype of a different size, the last axis must
be contiguous`` where torch 2.13 steps it (the same numbers as the contiguous parameter's).

The expected numbers are the engine's own steps of the same values held contiguously (those are
compared with torch's in tests/test_optim_complex_state_parity.py and tests/test_optim_added.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from optim_cases import OPTIMIZERS

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

VALUES = (np.arange(12.0).reshape(3, 4) + 1j * np.arange(12.0)[::-1].reshape(3, 4)) / 10


def _stepped(name, device, dtype, strided):
    """Three steps from ``VALUES.T``: held as the transpose of a (3, 4) array, or contiguously."""
    held = mg.tensor(VALUES if strided else VALUES.T.copy(), dtype=dtype, device=device)
    p = (held.t() if strided else held).detach().requires_grad_()
    opt = OPTIMIZERS[name]([p])
    versions = []
    for k in range(3):
        def closure(k=k):
            x = p.detach().cpu().numpy()
            p.grad = mg.tensor(np.cos(x.real + k) - 0.5j * np.sin(x.imag), dtype=dtype, device=device)
            return float(k)
        opt.step(closure)
        versions.append(p.version())
    return p, versions


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("device, dtype", [("cpu", mg.complex128), ("cpu", mg.complex64),
                                           ("strict", mg.complex128), ("strict-f32", mg.complex64)])
def test_a_transposed_complex_parameter_steps_as_a_contiguous_one(name, device, dtype):
    p, versions = _stepped(name, device, dtype, strided=True)
    want, _ = _stepped(name, device, dtype, strided=False)
    assert not p.is_contiguous()
    assert versions == sorted(set(versions))  # each step bumps the parameter's version
    np.testing.assert_array_equal(p.detach().cpu().numpy(), want.detach().cpu().numpy())
