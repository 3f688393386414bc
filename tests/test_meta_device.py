"""PyTorch's ``meta`` device: tensors with a shape and a dtype and no values.  The model ensembling tutorial
(``torch.func``) writes ``base_model = copy.deepcopy(models[0]).to('meta')`` and runs it through
``functional_call`` with stacked weights; large models are built under ``with torch.device('meta'):`` and
given memory by ``Module.to_empty(device=...)`` then ``load_state_dict``.  Before, ``.to('meta')`` was a
ValueError ("'meta' is neither a device nor a dtype").  The engine computes nothing on the meta device
(PyTorch's computes the shapes): an op of meta tensors is a NotImplementedError naming it.  torch 2.13's
answers are in the comments."""

import copy

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.func import functional_call, stack_module_state, vmap


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.bn, self.fc2 = nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(self.bn(self.fc1(x)).relu())


def test_the_ensembling_tutorials_meta_base_model():
    models = [MLP().eval() for _ in range(3)]
    params, buffers = stack_module_state(models)
    base_model = copy.deepcopy(models[0]).to("meta")
    w = base_model.fc1.weight
    assert w.device == "meta" and w.is_meta and w.shape == (3, 4) and w.dtype == mg.float32 and w.requires_grad
    assert type(w) is nn.Parameter and base_model.bn.num_batches_tracked.dtype == mg.int64
    x = mg.randn(5, 4)
    out = vmap(lambda p, b, x: functional_call(base_model, (p, b), (x,)), in_dims=(0, 0, None))(params, buffers, x)
    np.testing.assert_allclose(out.numpy(), mg.stack([m(x) for m in models]).detach().numpy(), rtol=1e-6)
    assert not mg.ones(2).is_meta


def test_a_meta_tensor_prints_as_pytorchs_and_refuses_values():
    meta64 = mg.empty(3, 4, device="meta", dtype=mg.float64)
    assert repr(meta64) == "tensor(..., device='meta', size=(3, 4), dtype=float64)"
    assert repr(nn.Parameter(mg.empty(2, device="meta"))) == (
        "Parameter containing:\ntensor(..., device='meta', size=(2,), requires_grad=True)")
    m = mg.ones(2, 3).to("meta")
    assert m.shape == (2, 3) and m.to(mg.float64).dtype == mg.float64 and mg.empty_like(m).is_meta
    with pytest.raises(NotImplementedError, match="add"):  # (PyTorch computes a meta result's shape)
        m + 1
    with pytest.raises(NotImplementedError, match="sum"):
        m.sum()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):  # PyTorch's words
        m.to("cpu")
    with pytest.raises(RuntimeError, match="same device"):
        mg.ones(2, 3) + m


def test_a_model_built_on_meta_draws_nothing_and_gets_memory_by_to_empty():
    mg.manual_seed(0)
    before = mg.randn(3)
    mg.manual_seed(0)
    with mg.device("meta"):
        model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Conv1d(4, 2, 1), nn.Embedding(5, 3))
    assert {str(t.device) for t in model.state_dict().values()} == {"meta"}
    assert mg.randn(3).equal(before)  # the meta model's initialisation took nothing from the generator
    assert nn.Linear(3, 2, device="meta").weight.is_meta and mg.empty(3, device="meta").uniform_().is_meta
    weight = model[0].weight
    assert model.to_empty(device="cpu") is model and model[0].weight is weight and weight.device == "cpu"
    source = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Conv1d(4, 2, 1), nn.Embedding(5, 3))
    model.load_state_dict(source.state_dict())
    x = mg.randn(6, 3)
    np.testing.assert_array_equal(model[1](model[0](x)).detach().numpy(), source[1](source[0](x)).detach().numpy())
    with mg.device("meta"):
        lin = nn.Linear(3, 2)
    lin.load_state_dict(nn.Linear(3, 2).state_dict(), assign=True)
    assert lin.weight.device == "cpu" and lin(mg.ones(1, 3)).shape == (1, 2)
