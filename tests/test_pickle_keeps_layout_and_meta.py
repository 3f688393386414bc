"""Pickling a tensor keeps its dense layout and works for a meta tensor, as PyTorch's pickling
(storage and strides) does: a channels-last tensor (a DataLoader worker's batch, a model's weight
sent between processes) came back row-major, because NumPy pickles any order other than row- or
column-major as row-major; and pickling a meta tensor raised NotImplementedError ("Cannot copy out
of meta tensor; no data!"), while ``copy.deepcopy`` of both already worked.  Strides expected:
torch 2.13's for the same tensors.  Found running PyTorch's serialization tests (pickling a tensor)
against the engine."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the "strict" devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("make, strides", [
    (lambda d: mg.arange(8.0, device=d).reshape(1, 2, 2, 2).contiguous(memory_format=mg.channels_last), (8, 1, 4, 2)),
    (lambda d: mg.arange(6.0, device=d).reshape(2, 3).t(), (1, 3)),
    (lambda d: mg.arange(24.0, device=d).reshape(2, 3, 4).permute(2, 0, 1), (1, 12, 4)),
    (lambda d: mg.arange(6, device=d).reshape(2, 3), (3, 1)),
    (lambda d: mg.tensor(2.5, device=d), ()),
    (lambda d: mg.zeros(0, 3, device=d), (3, 1)),
])
def test_a_pickled_tensor_keeps_its_layout_and_values(make, strides, device):
    t = make(device)
    u = pickle.loads(pickle.dumps(t))
    assert u.stride() == strides == copy.deepcopy(t).stride()
    assert u.dtype == t.dtype and str(u.device) == str(t.device)
    np.testing.assert_array_equal(u.cpu().numpy(), t.cpu().numpy())


def test_a_pickled_channels_last_parameter_stays_a_parameter():
    p = mg.nn.Parameter(mg.randn(2, 3, 4, 4).contiguous(memory_format=mg.channels_last))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is mg.nn.Parameter and q.requires_grad
    assert q.is_contiguous(memory_format=mg.channels_last)
    np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())


def test_a_meta_tensor_pickles():
    t = pickle.loads(pickle.dumps(mg.ones(2, 3, device="meta", dtype=mg.float64, requires_grad=True)))
    assert str(t.device) == "meta" and t.shape == (2, 3) and t.dtype == mg.float64 and t.requires_grad
    p = pickle.loads(pickle.dumps(mg.nn.Parameter(mg.ones(2, device="meta"))))
    assert type(p) is mg.nn.Parameter and str(p.device) == "meta"
    model = pickle.loads(pickle.dumps(mg.nn.Linear(3, 2, device="meta")))
    assert str(model.weight.device) == "meta" and model.weight.shape == (2, 3)
