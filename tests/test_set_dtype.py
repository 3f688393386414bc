"""``t.set_(v)`` takes ``v``'s storage, shape and device but never another dtype: PyTorch's
RuntimeError ("Could not set tensor of type long int to a tensor of type float").  The engine
took ``v``'s dtype.  ``Module.to``/``Module.type``/``Parameter(t)``, which cast a parameter and
keep it the same object, still change its dtype (PyTorch's ``param.data = new``).

Expected messages: torch 2.13, ``torch.zeros(2).set_(torch.tensor([1, 2]))`` and the same for each dtype.
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

# source dtype, target dtype, PyTorch's message
REFUSED = [
    ("int64", "float32", "Could not set tensor of type long int to a tensor of type float"),
    ("float32", "float64", "Could not set tensor of type float to a tensor of type double"),
    ("float64", "float32", "Could not set tensor of type double to a tensor of type float"),
    ("float16", "float32", "Could not set tensor of type c10::Half to a tensor of type float"),
    ("bool", "float32", "Could not set tensor of type bool to a tensor of type float"),
    ("int32", "int64", "Could not set tensor of type int to a tensor of type long int"),
    ("uint8", "float32", "Could not set tensor of type unsigned char to a tensor of type float"),
    ("complex64", "float32", "Could not set tensor of type c10::complex<float> to a tensor of type float"),
]
DEVICES = ["cpu", "strict"]


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("source, target, message", REFUSED)
def test_another_dtype_is_pytorchs_error_and_changes_nothing(source, target, message, device):
    t = mg.zeros(2, dtype=target, device=device)
    version = t.version()
    with pytest.raises(RuntimeError) as caught:
        t.set_(mg.ones(3, dtype=source, device=device))
    assert str(caught.value) == message
    assert t.shape == (2,) and t.dtype == target and t.version() == version


@pytest.mark.parametrize("device", DEVICES)
def test_the_same_dtype_shares_memory_and_takes_the_shape(device):
    t = mg.zeros(2, device=device)
    v = mg.ones(3, device=device)
    with mg.no_grad():
        assert t.set_(v) is t
    assert t.shape == (3,) and t.dtype == mg.float32 and t.tolist() == [1.0, 1.0, 1.0]
    v.add_(1.0)
    assert t.tolist() == [2.0, 2.0, 2.0]


def test_a_parameter_under_no_grad_is_refused_too():
    p = nn.Parameter(mg.zeros(2))
    with mg.no_grad(), pytest.raises(RuntimeError, match="type double to a tensor of type float"):
        p.set_(mg.zeros(2, dtype=mg.float64))


def test_module_casts_still_change_a_parameters_dtype_in_place():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    layer.weight.grad = mg.ones(2, 2)
    layer.double()
    assert layer.weight is weight and weight.dtype == mg.float64 and weight.grad.dtype == mg.float64
    layer.type(mg.float32)
    assert layer.weight is weight and weight.dtype == mg.float32
    layer._apply(lambda t: t.double())
    assert layer.weight is weight and weight.dtype == mg.float64
    p = nn.Parameter(mg.ones(2, dtype=mg.float64))
    assert p.dtype == mg.float64


def test_under_a_transform_the_refusal_holds():
    def f(x):
        y = x * 2.0
        with mg.no_grad():
            y.set_(mg.ones(2, dtype=mg.float64))
        return y.sum()
    with pytest.raises(RuntimeError, match="Could not set tensor of type double"):
        mg.func.grad(f)(mg.ones(2))
