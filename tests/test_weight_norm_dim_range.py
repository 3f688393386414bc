"""``weight_norm``'s ``dim`` is checked as PyTorch's ``norm_except_dim`` checks it: a dim out of the
weight's range is an IndexError (it used to be wrapped with ``%``: ``dim=2`` of a Linear's 2-D weight
became dim 0, a silent reparametrization of the wrong slices).  ``-1`` keeps its meaning (one norm for
the whole tensor), and another negative dim counts from the end, as in torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils import parametrizations


@pytest.mark.parametrize("apply", [parametrizations.weight_norm, nn.utils.weight_norm])
@pytest.mark.parametrize("dim", [2, -3])
def test_a_dim_out_of_the_weights_range_is_an_index_error(apply, dim):
    with pytest.raises(IndexError, match="out of range"):
        apply(nn.Linear(4, 3), dim=dim)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("dim, norm_shape", [(0, (3, 1)), (1, (1, 4)), (-2, (3, 1)), (-1, ()), (None, ())])
def test_dims_in_range_keep_their_meaning(dtype, dim, norm_shape):
    w = mg.arange(1, 13, dtype=dtype).reshape(3, 4)
    m = nn.Linear(4, 3).to(dtype)
    with mg.no_grad():
        m.weight.copy_(w)
    parametrizations.weight_norm(m, dim=dim)
    g = m.parametrizations.weight.original0
    assert g.shape == norm_shape and g.dtype == dtype
    np.testing.assert_allclose(m.weight.detach().numpy(), w.numpy(), rtol=1e-6)
