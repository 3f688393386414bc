"""``nn.DataParallel`` (PyTorch's one-process data parallelism) on the one device a process drives:
without a GPU a pass-through, as PyTorch's is without CUDA whatever ``device_ids`` says, with the
wrapped model at ``.module`` and ``module.`` before every state_dict key; a split over several GPUs
is refused (``NotImplementedError``) where there are several."""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def _model():
    mg.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 2))


def test_without_a_gpu_it_trains_as_the_module_itself_with_pytorchs_keys():
    plain, wrapped = _model(), nn.DataParallel(_model(), device_ids=[0, 1])  # ignored without CUDA, as torch
    assert wrapped.device_ids == [] and isinstance(wrapped.module, nn.Sequential)
    assert list(wrapped.state_dict()) == ["module." + k for k in plain.state_dict()]
    x = mg.tensor(np.random.default_rng(0).standard_normal((5, 3)), dtype="float32")
    for model in (plain, wrapped):
        opt = mg.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
    for (k, v), w in zip(plain.state_dict().items(), wrapped.state_dict().values()):
        assert np.array_equal(v.numpy(), w.numpy()), k
    assert nn.parallel.DataParallel is nn.DataParallel
    assert "(module): Sequential" in repr(wrapped)


def test_keyword_inputs_and_nested_outputs_pass_through():
    class Pair(nn.Module):
        def forward(self, x, *, scale):
            return {"double": (x * scale, [x]), "max": mg.max(x, dim=0)}

    out = nn.DataParallel(Pair())(mg.ones(2), scale=2.0)
    assert out["double"][0].tolist() == [2.0, 2.0] and out["double"][1][0].tolist() == [1.0, 1.0]
    assert out["max"].values.item() == 1.0  # a named tuple stays one


def test_what_moves_to_the_gpu_keeps_its_structure():
    # on a GPU the wrapper moves inputs and outputs through this; the strict device stands in for it
    from minigrad_ckpt.nn.data_parallel import _moved
    from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)

    moved = _moved({"max": mg.max(mg.ones(2, 3), dim=1), "list": [mg.ones(1), 3], "none": None},
                   mg.device("strict"))
    assert type(moved["max"]) is mg.return_types.max
    assert {str(t.device) for t in (moved["max"].values, moved["max"].indices, moved["list"][0])} == {"strict:0"}
    assert moved["list"][1] == 3 and moved["none"] is None
