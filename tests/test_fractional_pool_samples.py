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


@pytest.mark.parametrize("d, output_size, out_shape", [
    (2, (0, 1), (2, 3, 0, 1)),
    (2, (0, 0), (2, 3, 0, 0)),
    (3, (0, 1, 1), (2, 3, 0, 1, 1)),
])
def test_an_output_size_of_zero_pools_to_an_empty_output(d, output_size, out_shape):
    """PyTorch's FractionalMaxPool*d with an output size of 0 answers an empty output (its
    test_FractionalMaxPool2d_zero_out_size, test/nn/test_pooling.py); the engine refused it
    ("pool height 2 and output height 0 do not fit the input height 10")."""
    pool = F.fractional_max_pool2d if d == 2 else F.fractional_max_pool3d
    x = mg.ones(*(2, 3) + (10,) * d, requires_grad=True)
    out, idx = pool(x, 2, output_size=output_size, return_indices=True)
    assert out.shape == out_shape and idx.shape == out_shape
    out.sum().backward()
    assert x.grad.shape == x.shape and not x.grad.numpy().any()
    layer = (mg.nn.FractionalMaxPool2d if d == 2 else mg.nn.FractionalMaxPool3d)(2, output_size=output_size)
    assert layer(x).shape == out_shape


@pytest.mark.parametrize("call, words", [
    (lambda: F.fractional_max_pool2d(mg.ones(1, 2, 7, 7), 2, output_size=(9, 3)),
     "pool height 2 too large relative to input height 7"),
    (lambda: F.fractional_max_pool2d(mg.ones(1, 2, 7, 7), 2, output_size=(3, 9)),
     "pool width 2 too large relative to input width 7"),
    (lambda: F.fractional_max_pool3d(mg.ones(1, 2, 7, 7, 7), 2, output_size=(7, 3, 3)),
     "pool time 2 too large relative to input time 7"),
    (lambda: F.fractional_max_pool2d(mg.ones(1, 0, 7, 7), 2, output_size=3),
     "Expected input to have non-zero size for non-batch dimensions"),
    (lambda: mg.nn.FractionalMaxPool3d(3, output_ratio=0.5)(mg.ones(1, 0, 8, 8, 8)),
     "Expected input to have non-zero size for non-batch dimensions"),
])
def test_windows_that_do_not_fit_are_pytorchs_runtime_error(call, words):
    """PyTorch refuses an output too large for the input, and a zero channel or plane, with a
    RuntimeError (its test_fractional_max_pool2d/3d and test_FractionalMaxPool*d_zero_batch); the
    engine raised ValueError for the first and answered an empty output for the second."""
    with pytest.raises(RuntimeError, match=words):
        call()
