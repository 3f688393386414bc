"""``bmm``, ``baddbmm`` and ``addbmm`` take batches of one size, as PyTorch's: torch 2.13 raises
``RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [1, 3] but got:
[2, 3].`` for ``bmm`` of (1, 2, 3) and (2, 3, 4), where the engine, which computes them with
``matmul``, broadcast the batch and returned (2, 2, 4).  (``mg.matmul`` broadcasts, as both
libraries' ``matmul`` do.)
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

CALLS = {
    "bmm": lambda a, b: mg.bmm(a, b),
    "Tensor.bmm": lambda a, b: a.bmm(b),
    "baddbmm": lambda a, b: mg.baddbmm(mg.zeros((2, 4)), a, b),
    "addbmm": lambda a, b: mg.addbmm(mg.zeros((2, 4)), a, b),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize(("a_shape", "b_shape"), [((1, 2, 3), (2, 3, 4)), ((2, 2, 3), (1, 3, 4)),
                                                  ((2, 2, 3), (3, 3, 4)), ((2, 2, 3), (2, 4, 4))])
def test_batched_products_refuse_batches_or_inner_sizes_that_differ(name, a_shape, b_shape):
    with pytest.raises(RuntimeError, match="Expected size for first two dimensions of batch2 tensor"):
        CALLS[name](mg.ones(a_shape), mg.ones(b_shape))


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("batch", [0, 1, 2])
def test_batched_products_of_one_batch_size_still_work(name, batch):
    a = np.arange(batch * 6, dtype=np.float32).reshape(batch, 2, 3)
    b = np.ones((batch, 3, 4), dtype=np.float32)
    out = CALLS[name](mg.tensor(a), mg.tensor(b)).numpy()
    want = a @ b
    np.testing.assert_array_equal(out, want.sum(0) if name == "addbmm" else want)
