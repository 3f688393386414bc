"""``parametrizations.orthogonal`` on a device: every map, wide, square and tall weights.

The skew map padded a non-square weight with zeros made on the CPU, the Cayley map's identity was
made on the CPU, and assigning a square weight checked it against a CPU identity: on a GPU each is
a device mismatch (``Concatenate: expected all tensors on the same device``).  Each is made on the
weight's device now, and the device's numbers are the CPU's, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")
from minigrad_ckpt.nn.utils import parametrizations


def run(device, shape, orthogonal_map, dtype):
    mg.manual_seed(0)
    layer = mg.nn.Linear(shape[1], shape[0]).to(device=device, dtype=dtype)
    layer = parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map)
    x = mg.tensor(np.linspace(-1, 1, 2 * shape[1]).reshape(2, shape[1]), dtype=dtype, device=device)
    y = layer(x)
    y.pow(2).sum().backward()
    with mg.no_grad():
        layer.weight = mg.eye(*shape, dtype=dtype, device=device) * 2  # not orthogonal: made so
    assigned = layer.weight
    assert str(assigned.device).split(":")[0] == device
    return [t.detach().cpu().numpy() for t in (y, layer.parametrizations.weight.original.grad, assigned)]


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5)])
def test_orthogonal_on_the_device_is_the_cpus(device, orthogonal_map, shape):
    for got, want in zip(run(device, shape, orthogonal_map, mg.float32), run("cpu", shape, orthogonal_map, mg.float32)):
        np.testing.assert_array_equal(got, want)
