"""``nn.Flatten`` and ``nn.Unflatten`` check their dims as ``torch.flatten``/``torch.unflatten`` do.

The layers used to wrap a dim around with ``%`` (``Flatten()`` of a 1-D tensor flattened dim 1 % 1 = 0,
``Flatten(2, 1)`` merged nothing, ``Unflatten(2, ...)`` of a 2-D tensor split dim 0), returning a
tensor of the wrong shape where PyTorch raises an IndexError or a RuntimeError.  Answers from torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)


@pytest.mark.parametrize("layer, shape", [
    (lambda: nn.Flatten(), (3,)),           # torch: IndexError, dim 1 of a 1-D tensor
    (lambda: nn.Flatten(2, 1), (2, 3, 4)),  # torch: RuntimeError, start_dim after end_dim
    (lambda: nn.Flatten(0, 3), (2, 3, 4)),
    (lambda: nn.Flatten(1), ()),            # a 0-d tensor's dims are 0 and -1 only
    (lambda: nn.Unflatten(2, (1, 2)), (2, 3)),  # was dim 2 % 2 = 0 split: (1, 2, 3)
    (lambda: nn.Unflatten(-3, (2, 1)), (2, 12)),
    (lambda: nn.Unflatten(0, (1,)), ()),
])
def test_a_dim_out_of_range_is_an_error_not_wrapped_around(layer, shape):
    with pytest.raises((IndexError, ValueError, RuntimeError)):
        layer()(mg.zeros(shape))


def test_the_functions_check_a_0d_tensors_dims():
    with pytest.raises(IndexError):
        mg.flatten(mg.tensor(1.0), 1)
    with pytest.raises(RuntimeError):
        mg.unflatten(mg.tensor(1.0), 0, (1,))
    assert mg.flatten(mg.tensor(1.0), 0, -1).shape == (1,)


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("layer, shape, out_shape", [
    (lambda: nn.Flatten(), (2, 3, 4), (2, 12)),
    (lambda: nn.Flatten(-3, -2), (2, 3, 4), (6, 4)),
    (lambda: nn.Flatten(0, 0), (), (1,)),
    (lambda: nn.Flatten(0), (5,), (5,)),
    (lambda: nn.Unflatten(-1, (2, -1)), (3, 8), (3, 2, 4)),
    (lambda: nn.Unflatten(0, (3, 1)), (3, 8), (3, 1, 8)),
])
def test_dims_in_range_reshape_and_carry_the_gradient_back(device, dtype, layer, shape, out_shape):
    x = mg.arange(int(np.prod(shape)), dtype=dtype, device=device).reshape(shape).requires_grad_()
    y = layer()(x)
    assert y.shape == out_shape and y.dtype == dtype
    np.testing.assert_array_equal(y.numpy().ravel(), x.numpy().ravel())
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * x.numpy())
