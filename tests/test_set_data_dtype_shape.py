"""``t.data = v`` gives ``t`` the tensor ``v``'s dtype and shape, as PyTorch's ``set_data``:
``p.data = p.data.double()`` left a float32 Parameter (the engine cast ``v`` back to ``t``'s dtype,
silently) and ``emb.weight.data = bigger`` was a ValueError.  torch 2.13, on the same programs: the
Parameter (the same object, still requiring grad) is float64 and trains in float64; the embedding reads
its new rows; ``nn.Linear`` runs with a resized weight (``F.linear`` checks the weight, not
``in_features``); an integer ``v`` for a tensor that requires grad is refused ("data set to a tensor
that requires gradients must be floating point or complex dtype").
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SEAMS = [("cpu", mg.float32, mg.float64), ("strict", mg.float32, mg.float64), ("cpu", mg.float64, mg.float32),
         ("strict-f32", mg.float32, mg.float32)]


@pytest.mark.parametrize("device, old, new", SEAMS)
def test_a_parameter_takes_the_new_dtype_and_keeps_its_identity(device, old, new):
    layer = nn.Linear(2, 2, dtype=old, device=device)
    w, optimizer = layer.weight, mg.optim.SGD(layer.parameters(), lr=0.5)
    for p in layer.parameters():
        p.data = p.data.to(new)
    assert layer.weight is w and w.dtype == new and w.requires_grad and layer.bias.dtype == new
    assert optimizer.param_groups[0]["params"][0] is w
    x = mg.ones(1, 2, dtype=new, device=device)
    layer(x).sum().backward()
    assert w.grad.dtype == new
    optimizer.step()
    assert w.dtype == new


def test_a_leaf_takes_the_new_shape_and_layers_read_it():
    emb = nn.Embedding(4, 3)
    rows = mg.arange(18.0).reshape(6, 3)
    emb.weight.data = rows
    assert emb.weight.shape == (6, 3) and emb(mg.tensor([5])).tolist() == [[15.0, 16.0, 17.0]]
    layer = nn.Linear(2, 2)
    layer.weight.data = mg.ones(2, 3)
    out = layer(mg.ones(1, 3))
    np.testing.assert_allclose(out.detach().numpy(), 3.0 + layer.bias.detach().numpy()[None], rtol=1e-6)
    with pytest.raises(mg.functional.errors.InputMismatch, match="in_features=3"):
        layer(mg.ones(1, 2))


def test_an_integer_tensor_is_refused_for_a_tensor_that_requires_grad():
    t = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="must be floating point or complex dtype"):
        t.data = mg.zeros(3, dtype=mg.int64)
    c = mg.ones(3)
    c.data = mg.arange(4)  # a constant takes it, as PyTorch's
    assert c.dtype == mg.int64 and c.tolist() == [0, 1, 2, 3]



@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_vector_to_parameters_gives_the_vector_s_dtype(device):
    # torch 2.13: vector_to_parameters(torch.ones(8), float64 Linear(3, 2).parameters()) leaves float32
    # parameters (param.data = vec[...].view_as(param)); the engine kept float64, silently
    layer = nn.Linear(3, 2, dtype=mg.float64, device=device)
    w = layer.weight
    nn.utils.vector_to_parameters(mg.arange(8, dtype=mg.float32, device=device), layer.parameters())
    assert layer.weight is w and w.dtype == mg.float32 and layer.bias.dtype == mg.float32
    assert w.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and layer.bias.tolist() == [6.0, 7.0]
