"""A norm layer's ``__init__`` ends in ``self.reset_parameters()``, as PyTorch's (``_NormBase``,
``LayerNorm``, ``GroupNorm``, ``RMSNorm``): a subclass that overrides ``reset_parameters`` -- the
way to give a layer its own initialization -- is initialized by it at construction.  The engine's
built its parameters at ones and zeros and never called it, so the override ran only when called
by hand (found by a helper comparing module registration logs with torch 2.13)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

LAYERS = [
    (nn.BatchNorm1d, (3,), {}), (nn.BatchNorm2d, (3,), {}), (nn.BatchNorm3d, (3,), {}),
    (nn.InstanceNorm1d, (3,), {"affine": True}), (nn.InstanceNorm2d, (3,), {"affine": True}),
    (nn.InstanceNorm3d, (3,), {"affine": True}), (nn.LayerNorm, (3,), {}), (nn.GroupNorm, (1, 3), {}),
    (nn.RMSNorm, (3,), {}), (nn.BatchNorm1d, (3,), {"track_running_stats": False}),
]


@pytest.mark.parametrize("layer, args, kwargs", LAYERS, ids=lambda v: getattr(v, "__name__", None))
def test_a_subclass_reset_parameters_initializes_it(layer, args, kwargs):
    calls = []

    class Custom(layer):
        def reset_parameters(self):
            calls.append(type(self).__name__)
            with mg.no_grad():
                self.weight.fill_(0.5)

    m = Custom(*args, **kwargs)
    assert calls == ["Custom"]
    np.testing.assert_array_equal(m.weight.numpy(), np.full(m.weight.shape, 0.5, dtype=np.float32))


@pytest.mark.parametrize("layer, args, kwargs", LAYERS, ids=lambda v: getattr(v, "__name__", None))
def test_the_layer_itself_still_starts_at_ones_and_zeros(layer, args, kwargs):
    m = layer(*args, **kwargs, dtype=mg.float64)
    assert m.weight is None or np.all(m.weight.numpy() == 1)
    assert getattr(m, "bias", None) is None or np.all(m.bias.numpy() == 0)
    if getattr(m, "running_var", None) is not None:
        assert np.all(m.running_var.numpy() == 1) and np.all(m.running_mean.numpy() == 0)
        assert int(m.num_batches_tracked) == 0
