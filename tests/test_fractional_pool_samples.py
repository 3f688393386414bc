"""``_random_samples`` of the fractional max pools, read as PyTorch reads them: its first dim may be
*larger* than the input's batch (the first N rows are used; an unbatched input uses row 0), never
smaller, and its channel and axis dims must fit (PyTorch's ``RuntimeError``s).

Found by a differential probe against PyTorch 2.13's module database: its ``FractionalMaxPool3d``
inputs ``ratio_no_batch_dim`` and ``size_no_batch_dim`` pool a (4, 5, 5, 5) input with samples of
shape (2, 4, 3), which PyTorch takes and the engine refused.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

POOLS = {2: F.fractional_max_pool2d, 3: F.fractional_max_pool3d}


def _input(d, batch):
    shape = ((batch,) if batch else ()) + (4,) + (6,) * d
    return mg.tensor(np.random.default_rng(d).standard_normal(shape))


def _samples(n, c, d):
    return mg.tensor(np.random.default_rng(10 + n).uniform(size=(n, c, d)))


# (d, input batch (0: unbatched), sample rows): every row count PyTorch takes
TAKEN = [(d, batch, rows) for d in (2, 3) for batch, rows in ((0, 1), (0, 2), (0, 3), (2, 2), (2, 3))]


@pytest.mark.parametrize("d, batch, rows", TAKEN)
def test_extra_sample_rows_are_ignored(d, batch, rows):
    x, u = _input(d, batch), _samples(rows, 4, d)
    pool = POOLS[d]
    used = max(batch, 1)
    out = pool(x, 2, output_ratio=(0.5,) * d, _random_samples=u)
    same = pool(x, 2, output_ratio=(0.5,) * d, _random_samples=mg.tensor(u.numpy()[:used]))
    np.testing.assert_array_equal(out.numpy(), same.numpy())
    assert tuple(out.shape) == x.shape[:-d] + (3,) * d


# (d, input batch, samples shape): torch's RuntimeError for each
REFUSED = [(d, 2, shape) for d in (2, 3) for shape in ((1, 4, d), (2, 3, d), (2, 4, d - 1), (2, 4))]


@pytest.mark.parametrize("d, batch, shape", REFUSED)
def test_samples_that_do_not_fit_are_refused_as_torch(d, batch, shape):
    x = _input(d, batch)
    with pytest.raises(RuntimeError, match="_random_samples"):
        POOLS[d](x, 2, output_ratio=(0.5,) * d, _random_samples=mg.tensor(np.full(shape, 0.5)))


def test_the_layer_passes_its_samples_through():
    # torch.nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=u) with u of shape (2, 4, 3)
    # pools an unbatched (4, 5, 5, 5) input (PyTorch's module database: ratio_no_batch_dim)
    u = _samples(2, 4, 3)
    x = _input(3, 0)[:, :5, :5, :5]
    out = mg.nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=u)(x)
    assert tuple(out.shape) == (4, 2, 2, 2)
