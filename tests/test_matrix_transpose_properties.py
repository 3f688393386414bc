"""``x.mT``, ``x.mH``, ``x.H`` and ``x.adjoint()`` as torch 2.13's: a 1-D tensor (or a batch for
``H``) is its RuntimeError with its message (they were ValueError, and ``mT``'s an IndexError
from swapaxes), and a 0-d tensor is itself (conjugated for ``H``/``mH``/``adjoint``) with its
deprecation warning (they raised)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, message", [
    ("mT", "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("mH", "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("H", "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."),
])
def test_a_vector_is_pytorchs_runtime_error(device, name, message):
    with pytest.raises(RuntimeError) as info:
        getattr(mg.ones(3, device=device), name)
    assert str(info.value) == message
    with pytest.raises(RuntimeError, match=r"^tensor.adjoint\(\) is only supported on matrices or batches"):
        mg.ones(3, device=device).adjoint()


@pytest.mark.parametrize("device", DEVICES)
def test_h_of_a_batch_points_to_mh(device):
    with pytest.raises(RuntimeError) as info:
        mg.ones(2, 2, 2, device=device).H
    assert str(info.value) == ("tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. "
                               "For batches of matrices, consider using tensor.mH")
    assert mg.ones(2, 3, 4, device=device).mT.shape == (2, 4, 3) == mg.ones(2, 3, 4, device=device).mH.shape


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, conjugated", [("mT", False), ("mH", True), ("H", True)])
def test_a_0d_tensor_is_itself_with_pytorchs_warning(device, name, conjugated):
    z = mg.tensor(1.5 + 2j, device=device, requires_grad=True)
    with pytest.warns(UserWarning, match=f"Tensor.{name} is deprecated on 0-D tensors"):
        out = getattr(z, name)
    assert complex(out.item()) == (1.5 - 2j if conjugated else 1.5 + 2j)
    out.real.backward()
    assert complex(z.grad.item()) == 1.0


@pytest.mark.parametrize("device", DEVICES)
def test_matrices_are_unchanged(device):
    a = np.array([[1 + 2j, 3j], [4.0, 5 - 1j]], dtype=np.complex128)
    x = mg.tensor(a, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(x.H.numpy(), a.conj().T)
        np.testing.assert_array_equal(x.mH.numpy(), a.conj().T)
        np.testing.assert_array_equal(x.mT.numpy(), a.T)
        np.testing.assert_array_equal(x.adjoint().numpy(), a.conj().T)
