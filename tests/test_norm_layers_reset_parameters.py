"""Every layer with parameters that PyTorch can reset has ``reset_parameters`` (BatchNorm and
InstanceNorm ``reset_running_stats`` too), and it puts the layer back as it was built.

Found by comparing the public methods of PyTorch 2.13's module-database classes with ours: LayerNorm,
GroupNorm, RMSNorm, InstanceNorm1d/2d/3d and PReLU had none, so the common re-initialisation
``model.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)`` -- or a
``to_empty`` followed by it -- left them with whatever they held.  PReLU keeps its ``init`` (PyTorch's
attribute, which its reset reads); ReLU6 is PyTorch's ``Hardtanh(0, 6)``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

LAYERS = {
    "LayerNorm": lambda: nn.LayerNorm((3, 4)),
    "LayerNorm no bias": lambda: nn.LayerNorm(4, bias=False),
    "GroupNorm": lambda: nn.GroupNorm(2, 4),
    "GroupNorm no bias": lambda: nn.GroupNorm(2, 4, bias=False),
    "RMSNorm": lambda: nn.RMSNorm(4),
    "InstanceNorm1d tracking": lambda: nn.InstanceNorm1d(4, affine=True, track_running_stats=True),
    "InstanceNorm2d": lambda: nn.InstanceNorm2d(4, affine=True),
    "InstanceNorm3d tracking": lambda: nn.InstanceNorm3d(4, track_running_stats=True),
    "BatchNorm2d": lambda: nn.BatchNorm2d(4),
    "PReLU": lambda: nn.PReLU(4, init=0.1),
    "PReLU one slope": lambda: nn.PReLU(),
}


def _scramble(module):
    rng = np.random.default_rng(0)
    with mg.no_grad():
        for t in list(module.parameters()) + [b for b in module.buffers() if b.dtype.kind == "f"]:
            t.add_(mg.tensor(rng.standard_normal(t.shape).astype(t.dtype)))
        for b in module.buffers():
            if b.dtype.kind == "i":
                b.add_(3)


def _state(module):
    return {k: v.numpy().copy() for k, v in module.state_dict().items()}


@pytest.mark.parametrize("name", LAYERS)
def test_reset_parameters_puts_the_layer_back_as_built(name):
    built = LAYERS[name]()
    expected = _state(built)
    _scramble(built)
    assert any(not np.array_equal(expected[k], v) for k, v in _state(built).items())
    built.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
    for k, v in _state(built).items():
        np.testing.assert_array_equal(v, expected[k], err_msg=k)
        assert v.dtype == expected[k].dtype


@pytest.mark.parametrize("name", [n for n in LAYERS if "Norm" in n and ("Batch" in n or "Instance" in n)])
def test_reset_running_stats_leaves_the_affine_parameters(name):
    m = LAYERS[name]()
    _scramble(m)
    params = {k: p.numpy().copy() for k, p in m.named_parameters()}
    m.reset_running_stats()
    for k, p in m.named_parameters():
        np.testing.assert_array_equal(p.numpy(), params[k])
    if m.track_running_stats:
        np.testing.assert_array_equal(m.running_mean.numpy(), 0)
        np.testing.assert_array_equal(m.running_var.numpy(), 1)
        assert int(m.num_batches_tracked) == 0


def test_prelu_keeps_its_init():
    # torch.nn.PReLU(3, init=0.1).init -> 0.1; the weight float32(0.1) three times
    m = nn.PReLU(3, init=0.1)
    assert m.init == 0.1
    np.testing.assert_array_equal(m.weight.numpy(), np.full(3, 0.1, dtype=np.float32))


def test_relu6_is_a_hardtanh_from_0_to_6():
    # torch: isinstance(nn.ReLU6(), nn.Hardtanh); .min_val, .max_val -> 0.0, 6.0; repr 'ReLU6()' and
    # 'ReLU6(inplace=True)'; nn.ReLU6()(torch.tensor([-1., 3., 7.])) -> [0., 3., 6.]
    m = nn.ReLU6()
    assert isinstance(m, nn.Hardtanh)
    assert (m.min_val, m.max_val, m.inplace) == (0.0, 6.0, False)
    assert repr(m) == "ReLU6()" and repr(nn.ReLU6(inplace=True)) == "ReLU6(inplace=True)"
    np.testing.assert_array_equal(m(mg.tensor([-1.0, 3.0, 7.0])).numpy(), [0.0, 3.0, 6.0])
    x = mg.tensor([-1.0, 3.0, 7.0])
    assert nn.ReLU6(inplace=True)(x) is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 3.0, 6.0])


def test_relu6_clamps_to_its_bounds_when_they_are_changed():
    # torch: m = nn.ReLU6(); m.max_val = 2.0; m(torch.tensor([-1., 3., 7.])) -> [0., 2., 2.] (Hardtanh's forward)
    m = nn.ReLU6()
    m.max_val = 2.0
    np.testing.assert_array_equal(m(mg.tensor([-1.0, 3.0, 7.0])).numpy(), [0.0, 2.0, 2.0])
