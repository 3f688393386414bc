"""Activations of integer input.  ``F.threshold`` keeps the integer dtype with ``value`` cast to it,
as torch 2.13 (``threshold(tensor([-2, 0, 1, 3]), 1.5, 0.5)`` is ``[0, 0, 0, 3]``, int64; it was a
float32 ``[0.5, 0.5, 0.5, 3.]``).  ``leaky_relu``, ``gelu``, ``silu``, ``elu``, ``mish`` of integers
are PyTorch's ``NotImplementedError`` (its kernels are floating only: '"elu_cpu" not implemented for
'Long''); they answered float64, NumPy's promotion of int64, and then the default float dtype."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_threshold_keeps_integers_as_pytorch(device):
    i = mg.tensor([-2, 0, 1, 3], device=device)
    assert F.threshold(i, 1.5, 0.5).tolist() == [0, 0, 0, 3] and F.threshold(i, 1.5, 0.5).dtype == mg.int64
    assert F.threshold(i, 0, 5).tolist() == [5, 5, 1, 3]
    assert F.threshold(i.to(mg.int32), 0, 5).dtype == mg.int32
    j = i.clone()
    F.threshold(j, 0, 7, inplace=True)
    assert j.tolist() == [7, 7, 1, 3] and j.dtype == mg.int64
    x = mg.tensor([-1.0, 2.0], device=device, requires_grad=True)
    y = F.threshold(x, 0.0, -1.5)
    y.sum().backward()
    assert y.tolist() == [-1.5, 2.0] and x.grad.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, kernel", [("leaky_relu", "leaky_relu_cpu"), ("gelu", "GeluKernelImpl"),
                                          ("silu", "silu_cpu"), ("elu", "elu_cpu"), ("mish", "mish_cpu")])
def test_float_activations_refuse_integers_as_pytorch(name, kernel, device):
    i = mg.tensor([-2, 0, 1, 3], device=device)
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'Long\''):
        getattr(F, name)(i)
    got = getattr(F, name)(i.float())  # the cast PyTorch asks for
    want = getattr(F, name)(mg.tensor([-2.0, 0.0, 1.0, 3.0], device=device))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
