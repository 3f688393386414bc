"""``flip``, ``fliplr``, ``flipud`` and ``rot90`` give copies, as PyTorch's do: a write into the
result leaves the input alone (NumPy's ``flip`` is a view), and the result has its own version,
so changing it in place never disturbs a backward through the input."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

FLIPS = {
    "flip": lambda x: x.flip(0),
    "flip both": lambda x: mg.flip(x, (0, 1)),
    "fliplr": mg.fliplr,
    "flipud": mg.flipud,
    "rot90": mg.rot90,
    "rot90 twice": lambda x: mg.rot90(x, 2),
    "rot90 back": lambda x: mg.rot90(x, -1),
}


@pytest.mark.parametrize("name", sorted(FLIPS))
def test_a_write_into_the_result_leaves_the_input_alone(name):
    # torch: x = torch.arange(4.).reshape(2, 2); y = x.flip(0); y[0, 0] = 9 leaves x as it was
    x = mg.arange(4.0).reshape(2, 2)
    y = FLIPS[name](x)
    y[0, 0] = 9.0
    np.testing.assert_array_equal(x.numpy(), [[0.0, 1.0], [2.0, 3.0]])


@pytest.mark.parametrize("name", sorted(FLIPS))
def test_the_result_changes_in_place_without_disturbing_backward(name):
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", requires_grad=True)
    h = x * 1
    s = h.sin()  # saves h
    y = FLIPS[name](h)
    y.mul_(2)  # recorded on y alone
    (s.sum() + y.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.numpy()) + 2)
    np.testing.assert_array_equal(h.numpy(), [[1.0, 2.0], [3.0, 4.0]])
