"""What PyTorch's adaptive pools take, found running its test/nn/test_pooling.py against the engine
(test_adaptive_pooling_zero_batch, test_adaptive_pooling_no_suppot_input).

- They check every dim after the first of the input *as given*: an unbatched input with no
  channels, (0, L), (0, H, W), (0, D, H, W), pools to an empty output (torch 2.13:
  ``adaptive_max_pool2d(zeros(0, 4, 4), 2)`` is (0, 2, 2)), while a batched one with no channels,
  (1, 0, ...), is a RuntimeError (except ``adaptive_avg_pool1d``/``2d``, which answer both).
  The engine batched the input first and refused both for ``adaptive_max_pool1d``/``2d``/``3d`` and
  ``adaptive_avg_pool3d``.
- ``adaptive_max_pool3d`` refuses integers, as ``adaptive_max_pool1d``/``2d`` (PyTorch's
  ``"adaptive_max_pool3d_cpu" not implemented for 'Int'``); the engine answered.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

POOLS = {
    "adaptive_max_pool1d": (F.adaptive_max_pool1d, 1),
    "adaptive_max_pool2d": (F.adaptive_max_pool2d, 2),
    "adaptive_max_pool3d": (F.adaptive_max_pool3d, 3),
    "adaptive_avg_pool1d": (F.adaptive_avg_pool1d, 1),
    "adaptive_avg_pool2d": (F.adaptive_avg_pool2d, 2),
    "adaptive_avg_pool3d": (F.adaptive_avg_pool3d, 3),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_an_unbatched_input_without_channels_pools_to_an_empty_output(name):
    pool, d = POOLS[name]
    x = mg.zeros(*(0,) + (4,) * d, requires_grad=True)
    out = pool(x, 2)
    assert out.shape == (0,) + (2,) * d
    out.sum().backward()
    assert x.grad.shape == x.shape


@pytest.mark.parametrize("name", ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
                                  "adaptive_avg_pool3d"])
def test_a_batched_input_without_channels_is_refused(name):
    pool, d = POOLS[name]
    with pytest.raises(RuntimeError, match="non-batch"):
        pool(mg.zeros(*(1, 0) + (4,) * d), 2)


def test_an_unbatched_adaptive_max_pool1d_keeps_its_values_and_indices():
    x = mg.tensor([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0], [2.0, 6.0, 5.0, 3.0, 5.0, 8.0]], requires_grad=True)
    out, idx = F.adaptive_max_pool1d(x, 3, return_indices=True)
    assert out.tolist() == [[3.0, 4.0, 9.0], [6.0, 5.0, 8.0]] and idx.tolist() == [[0, 2, 5], [1, 2, 5]]
    out.sum().backward()
    assert x.grad.tolist() == [[1, 0, 1, 0, 0, 1], [0, 1, 1, 0, 0, 1]]


@pytest.mark.parametrize("dtype", [mg.int32, mg.int64, mg.uint8])
def test_adaptive_max_pool3d_refuses_integers(dtype):
    with pytest.raises(NotImplementedError, match="adaptive_max_pool3d_cpu"):
        F.adaptive_max_pool3d(mg.zeros(1, 2, 4, 4, 4, dtype=dtype), 2)
