"""``vmap``'s outputs laid out as PyTorch's: the batch outermost in memory, ``out_dims`` a view.

PyTorch's batched tensor keeps the batch dimension outermost and ``out_dims`` moves it with a
view, so ``vmap(f, out_dims=1)(x)`` has strides ``(5, 15, 1)`` for a ``(3, 2, 5)`` result, and
``result[:, 0]`` is contiguous (``.view(-1)`` works).  Stacking the examples along ``out_dims``
directly gave a contiguous ``(3, 2, 5)`` whose slices along the batch are not: the values were
the same, the strides, ``is_contiguous`` and the ``view`` calls that work were not.  The strides
below are what torch 2.13 printed for the same programs.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func

X = np.arange(30.0).reshape(2, 3, 5)


def double(a):
    return a * 2


@pytest.mark.parametrize("out_dims, shape, strides", [
    (0, (2, 3, 5), (15, 5, 1)),
    (1, (3, 2, 5), (5, 15, 1)),
    (-1, (3, 5, 2), (5, 1, 15)),
    (2, (3, 5, 2), (5, 1, 15)),
])
def test_out_dims_moves_a_batch_first_result(out_dims, shape, strides):
    y = func.vmap(double, out_dims=out_dims)(mg.tensor(X))
    assert y.shape == shape and y.stride() == strides
    np.testing.assert_array_equal(y.numpy(), np.moveaxis(2 * X, 0, out_dims))


def test_a_slice_along_the_batch_is_contiguous_and_views():
    y = func.vmap(double, out_dims=1)(mg.tensor(X))
    assert y[:, 0].is_contiguous()
    np.testing.assert_array_equal(y[:, 0].view(-1).numpy(), 2 * X[0].ravel())
    assert not y.is_contiguous()  # as PyTorch's: the whole result is a moved view
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        y.view(-1)


def test_nested_vmaps_and_per_example_contiguous_clones():
    y = func.vmap(func.vmap(double, out_dims=1), out_dims=1)(mg.tensor(X))
    assert y.shape == (5, 2, 3) and y.stride() == (1, 15, 5)

    def contiguous_clone(a):
        return a.clone(memory_format=mg.contiguous_format)

    z = func.vmap(contiguous_clone, in_dims=1, out_dims=1)(mg.tensor(X))
    assert z.stride() == (5, 10, 1) and z.movedim(1, 0).is_contiguous() and z[:, 0, :].is_contiguous()


def test_gradients_and_an_empty_batch_keep_the_layout():
    x = mg.tensor(X, requires_grad=True)
    y = func.vmap(double, out_dims=2)(x)
    (y * mg.tensor(np.moveaxis(X, 0, 2))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * X)
    empty = func.vmap(double, out_dims=1)(mg.ones(0, 3))
    assert empty.shape == (3, 0)
