"""Every ``nn.init`` fill of a float32 tensor on a device makes no float64 array and gives the
CPU's values, bit for bit.

``sparse_`` ranked each column's rows by float64 uniform draws: a float64 array the size of the
weight on the device, which ``"strict-f32"`` (standing for a float32 model that must hold no
float64) refused.  It ranks by the same draws' top 53 bits as integers now -- the same order, so
the same sparse matrix as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")
from minigrad_ckpt.nn import init

FILLS = {
    "uniform_": lambda w: init.uniform_(w, -2, 3), "normal_": lambda w: init.normal_(w, 1, 2),
    "trunc_normal_": lambda w: init.trunc_normal_(w, 0, 1, -0.5, 0.5), "constant_": lambda w: init.constant_(w, 0.3),
    "eye_": init.eye_, "xavier_uniform_": init.xavier_uniform_, "xavier_normal_": init.xavier_normal_,
    "kaiming_uniform_": lambda w: init.kaiming_uniform_(w, a=0.1, mode="fan_out", nonlinearity="leaky_relu"),
    "kaiming_normal_": init.kaiming_normal_, "orthogonal_": lambda w: init.orthogonal_(w, 1.5),
    "sparse_": lambda w: init.sparse_(w, 0.5), "sparse_generator": lambda w: init.sparse_(
        w, 0.3, std=0.5, generator=mg.Generator().manual_seed(4)),
}


def filled(name, device, shape):
    mg.manual_seed(3)
    w = mg.empty(*shape, dtype=mg.float32, device=device)
    assert FILLS[name](w) is w
    return w.cpu().numpy()


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("shape", [(4, 6), (50, 7)])
@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_float32_fill_on_a_device_is_the_cpus(device, shape, name):
    np.testing.assert_array_equal(filled(name, device, shape), filled(name, "cpu", shape))


def test_sparse_zeros_the_asked_share_of_each_column():
    w = filled("sparse_", "cpu", (50, 7))
    assert ((w == 0).sum(0) == 25).all() and np.abs(w).max() < 0.1
