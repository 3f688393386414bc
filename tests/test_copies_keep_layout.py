"""A copy made from a tensor keeps its layout, as PyTorch's ``preserve_format`` copies do: ``mg.tensor(x)``,
``x.new_tensor(x)`` and ``Module.to``'s casts (``model.double()``, ``model.half()``, ``model.to(dtype)``).
Found porting the channels-last tutorial (``intermediate_source/memory_format_tutorial.py``): a model laid
out with ``model.to(memory_format=mg.channels_last)`` and then cast with ``model.double()`` came back with
row-major weights, where torch 2.13 keeps ``(72, 1, 24, 8)``.  Strides below are torch 2.13's (CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

CASTS = {
    "double": lambda m: m.double(),
    "half": lambda m: m.half(),
    "to(float64)": lambda m: m.to(mg.float64),
    "to(dtype=float16)": lambda m: m.to(dtype=mg.float16),
    "type(float64)": lambda m: m.type(mg.float64),
}


@pytest.mark.parametrize("name", CASTS)
def test_a_channels_last_model_stays_channels_last_when_cast(name):
    # torch: nn.Conv2d(8, 4, 3).to(memory_format=torch.channels_last).double().weight.stride() == (72, 1, 24, 8)
    model = mg.nn.Conv2d(8, 4, 3).to(memory_format=mg.channels_last)
    before = model.weight.detach().numpy().copy()
    CASTS[name](model)
    itemsize = model.weight.dtype.itemsize
    assert model.weight.stride() == (72, 1, 24, 8)
    assert model.weight.detach().numpy().strides == tuple(s * itemsize for s in (72, 1, 24, 8))
    assert model.weight.is_contiguous(memory_format=mg.channels_last)
    np.testing.assert_array_equal(model.weight.detach().numpy(), before.astype(model.weight.dtype))


def test_the_gradient_is_cast_in_the_parameters_layout():
    model = mg.nn.Conv2d(8, 4, 3).to(memory_format=mg.channels_last)
    model(mg.ones(1, 8, 4, 4).to(memory_format=mg.channels_last)).sum().backward()
    model.double()
    assert model.weight.grad.is_contiguous(memory_format=mg.channels_last)


def _channels_last():
    return mg.arange(120.0).reshape(2, 3, 4, 5).to(memory_format=mg.channels_last)


COPIES = {
    "tensor": lambda x: mg.tensor(x),
    "tensor(dtype)": lambda x: mg.tensor(x, dtype=mg.float64),
    "new_tensor": lambda x: x.new_tensor(x),
    "Tensor._from_data": lambda x: mg.Tensor._from_data(x, dtype=mg.float16),
}


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_of_a_tensor_keeps_its_layout(name):
    # torch: torch.tensor(x).stride() == (60, 1, 15, 3) for a channels-last x; (1, 4) for torch.ones(3, 4).t()
    x = _channels_last()
    y = COPIES[name](x)
    assert y.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert not np.shares_memory(y.numpy(), x.numpy())
    t = mg.arange(12.0).reshape(3, 4).t()
    u = COPIES[name](t)
    assert u.stride() == (1, 4)
    np.testing.assert_array_equal(u.numpy(), t.numpy())


def test_a_copy_of_a_strided_slice_is_dense():
    # torch: torch.tensor(torch.ones(3, 8)[:, ::2]).stride() == (4, 1)
    y = mg.tensor(mg.ones(3, 8)[:, ::2])
    assert y.stride() == (4, 1) and y.is_contiguous()


def test_a_meta_model_still_casts():
    with mg.device("meta"):
        model = mg.nn.Conv2d(8, 4, 3)
    model.double()
    assert model.weight.dtype == mg.float64 and model.weight.device.type == "meta"
