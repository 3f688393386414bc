"""``Module.to`` takes PyTorch's keyword forms: ``model.to(device=device)`` and ``model.to(device=..., dtype=...)``
(the everyday spelling of ported scripts) raised ``TypeError: unexpected keyword argument 'device'``.  As in
torch 2.13, parameters and buffers keep their identity, only floating ones are cast, and a device given both
positionally and by keyword is a TypeError."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


def _model() -> mg.nn.Module:
    return mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.BatchNorm1d(3))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [None, mg.float64, mg.float32])
def test_to_with_the_device_keyword(device, dtype):
    model = _model()
    weight = model[0].weight
    assert model.to(device=device, dtype=dtype) is model
    assert model[0].weight is weight  # the same Parameter (an optimizer built before keeps it)
    want = mg.float32 if dtype is None else dtype
    for name, t in model.state_dict().items():
        assert t.device == mg.device(device), name
        assert t.dtype == (mg.int64 if name.endswith("num_batches_tracked") else want), name
    out = model(mg.ones(4, 2, device=device, dtype=want))
    assert out.device == mg.device(device) and out.dtype == want


def test_to_refuses_a_device_given_twice():
    # torch: nn.Linear(1, 1).to("cpu", device="cpu") -> TypeError (an invalid combination of arguments)
    with pytest.raises(TypeError):
        _model().to("cpu", device="cpu")
