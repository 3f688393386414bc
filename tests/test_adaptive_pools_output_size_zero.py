"""An adaptive pool's ``output_size`` holding a 0: torch 2.13's forward answers the empty output
(``adaptive_avg_pool2d(ones(2, 3, 5, 4), (0, 2))`` is (2, 3, 0, 2); the max pools' indices too),
and refuses a negative size ("elements of output_size must be greater than or equal to 0 but
received {1, -1}").  The engine refused the 0 ("output_size must be positive").  Found probing the
adaptive pools against torch with 0 sizes.  PyTorch's backward then refuses the empty gradient
("Expected grad_output to have non-zero size"); the engine's gradient is the input's zeros, the
derivative of an output that holds none of it (docs/from-pytorch.md)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

CASES = [
    ("adaptive_avg_pool1d", F.adaptive_avg_pool1d, (2, 3, 5), 0, (2, 3, 0)),
    ("adaptive_max_pool1d", F.adaptive_max_pool1d, (2, 3, 5), 0, (2, 3, 0)),
    ("adaptive_avg_pool1d unbatched", F.adaptive_avg_pool1d, (3, 5), 0, (3, 0)),
    ("adaptive_avg_pool2d", F.adaptive_avg_pool2d, (2, 3, 5, 4), (0, 2), (2, 3, 0, 2)),
    ("adaptive_avg_pool2d None", F.adaptive_avg_pool2d, (2, 3, 5, 4), (None, 0), (2, 3, 5, 0)),
    ("adaptive_avg_pool2d unbatched", F.adaptive_avg_pool2d, (3, 5, 4), 0, (3, 0, 0)),
    ("adaptive_max_pool2d", F.adaptive_max_pool2d, (2, 3, 5, 4), (2, 0), (2, 3, 2, 0)),
    ("adaptive_avg_pool3d", F.adaptive_avg_pool3d, (2, 3, 5, 4, 3), (1, 0, 1), (2, 3, 1, 0, 1)),
    ("adaptive_max_pool3d", F.adaptive_max_pool3d, (2, 3, 5, 4, 3), 0, (2, 3, 0, 0, 0)),
]


@pytest.mark.parametrize("name, pool, shape, size, expected", CASES, ids=[c[0] for c in CASES])
def test_an_output_size_of_0_is_an_empty_output(name, pool, shape, size, expected):
    x = mg.ones(*shape, requires_grad=True)
    y = pool(x, size)
    assert y.shape == expected and y.dtype == mg.float32
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shape))
    if "max" in name:
        out, idx = pool(x, size, return_indices=True)
        assert out.shape == idx.shape == expected and idx.dtype == mg.int64


def test_a_negative_output_size_is_refused_in_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"elements of output_size must be greater than or equal to 0 but "
                                           r"received \{1, -1\}"):
        F.adaptive_avg_pool1d(mg.ones(2, 3, 5), -1)


def test_the_layers_answer_too():
    assert mg.nn.AdaptiveAvgPool2d(0)(mg.ones(2, 3, 5, 4)).shape == (2, 3, 0, 0)
    assert mg.nn.AdaptiveMaxPool1d(0)(mg.ones(2, 3, 5)).shape == (2, 3, 0)
