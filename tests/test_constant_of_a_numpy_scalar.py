"""A tensor the engine builds from a 0-d NumPy result holds a 0-d array, not a NumPy scalar.

``mg.isin(zero_d, t)`` reduced with NumPy's ``any``, whose 0-d answer is a scalar (``np.True_``);
the tensor around it printed, but ``.numpy()`` -- which marks its view read-only -- raised NumPy's
"Cannot set flags on array scalars" on the CPU, where the strict device (its 0-d results are
arrays) answered.  ``Tensor.constant`` now makes any NumPy scalar a 0-d array.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")
from minigrad_ckpt.tensor import Tensor


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_of_a_zero_d_tensor_converts_to_numpy(device, invert):
    got = mg.isin(mg.tensor(0.5, device=device), mg.tensor([[0.5, 1.0]], device=device), invert=invert)
    assert got.shape == () and got.dtype == mg.bool
    assert got.numpy().tolist() is (not invert) and got.item() is (not invert)
    np.testing.assert_array_equal(np.asarray(got.cpu()), np.array(not invert))


@pytest.mark.parametrize("scalar", [np.float32(1.5), np.True_, np.int64(3), np.complex64(1j)])
def test_a_constant_around_a_numpy_scalar_holds_a_zero_d_array(scalar):
    t = Tensor.constant(scalar)
    assert isinstance(t._data, np.ndarray) and t.shape == () and t.dtype == scalar.dtype
    assert not t.numpy().flags.writeable and t.numpy()[()] == scalar
