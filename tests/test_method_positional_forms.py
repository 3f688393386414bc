"""Tensor methods take PyTorch's positional forms (found by calling every method both engines have
with the same positional arguments as torch 2.13):

* ``x.logsumexp(1, True)``: ``dim`` then ``keepdim`` -- it raised "pass either axis= or dim=";
* ``x.tile(1, 2)``, ``x.count_nonzero(0, 1)``, ``x.hsplit(1, 2)`` (split points as separate
  arguments), ``x.broadcast_to(2, -1, 4)`` -- each a TypeError for too many arguments;
* ``-1`` in ``broadcast_to`` keeps a size, as PyTorch's (which is ``expand``) -- it could not be broadcast.

Each answer is checked against NumPy's arithmetic of the same meaning.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict"]
A = np.random.default_rng(3).standard_normal((2, 3, 4))


def _x(device, requires_grad=False):
    return mg.tensor(A, device=device, requires_grad=requires_grad)


@pytest.mark.parametrize("device", DEVICES)
def test_logsumexp_takes_dim_and_keepdim_by_position(device):
    x = _x(device, requires_grad=True)
    out = x.logsumexp(1, True)
    want = np.log(np.exp(A).sum(1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    out.sum().backward()  # the gradient is the softmax along dim 1
    np.testing.assert_allclose(x.grad.numpy(), np.exp(A) / np.exp(A).sum(1, keepdims=True), rtol=1e-12)
    assert x.logsumexp(1, False).shape == (2, 4)
    with pytest.raises(TypeError, match="takes 3 positional arguments"):
        x.logsumexp(1, True, 0)
    with pytest.raises(TypeError, match="takes 2 positional arguments"):
        x.cumsum(0, 1)  # cumsum's dtype is keyword-only, as PyTorch's


@pytest.mark.parametrize("device", DEVICES)
def test_tile_and_count_nonzero_take_their_dims_as_separate_arguments(device):
    x = _x(device)
    for form in ((1, 2), ((1, 2),)):
        np.testing.assert_array_equal(x.tile(*form).numpy(), np.tile(A, (1, 2)))
    np.testing.assert_array_equal(x.tile(dims=(2,)).numpy(), np.tile(A, 2))
    z = mg.tensor(np.where(A > 0, A, 0.0), device=device)
    for form in ((0, 1), ((0, 1),)):
        np.testing.assert_array_equal(z.count_nonzero(*form).numpy(), np.count_nonzero(A > 0, axis=(0, 1)))
    assert int(z.count_nonzero()) == np.count_nonzero(A > 0)


@pytest.mark.parametrize("device", DEVICES)
def test_hsplit_vsplit_dsplit_take_split_points_as_separate_arguments(device):
    x = _x(device)
    for method, axis, points in (("hsplit", 1, (1, 2)), ("vsplit", 0, (1, 2)), ("dsplit", 2, (1, 3))):
        got = getattr(x, method)(*points)
        want = np.split(A, list(points), axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    assert [p.shape for p in x.hsplit(3)] == [(2, 1, 4)] * 3  # one int: the number of sections, as before


@pytest.mark.parametrize("device", DEVICES)
def test_broadcast_to_keeps_a_size_at_minus_one_as_expand(device):
    x = mg.tensor(np.arange(3.0).reshape(3, 1), device=device, requires_grad=True)
    for y in (x.broadcast_to(2, -1, 4), x.broadcast_to((2, -1, 4)), mg.broadcast_to(x, (2, -1, 4))):
        np.testing.assert_array_equal(y.numpy(), np.broadcast_to(np.arange(3.0).reshape(3, 1), (2, 3, 4)))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 1), 8.0))
    with pytest.raises(RuntimeError, match="expanded size"):
        x.broadcast_to(2, 2, 4)  # PyTorch's error, as expand's
    with pytest.raises(ValueError, match="-1"):
        mg.broadcast_to(x, (-1, 3, 4))  # a new leading dim has no size to keep


@pytest.mark.parametrize("device", DEVICES)
def test_pytorchs_keyword_names_of_swapaxes_swapdims_and_view(device):
    """torch 2.13's ``swapaxes(axis0=, axis1=)``, ``swapdims(dim0=, dim1=)``, ``view(size=)``,
    ``view(dtype=)``: each was an unexpected keyword.  NumPy's ``swapaxes(axis1=, axis2=)`` stays."""
    x = _x(device, requires_grad=True)
    want = np.swapaxes(A, 0, 2)
    for y in (x.swapaxes(axis0=0, axis1=2), mg.swapaxes(x, 0, axis1=2), mg.swapaxes(x, axis1=0, axis2=2),
              x.swapdims(dim0=0, dim1=2), mg.swapdims(x, dim0=2, dim1=0), x.swapaxes(0, 2)):
        np.testing.assert_array_equal(y.numpy(), want)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones_like(A))
    with pytest.raises(TypeError, match="multiple values for argument 'axis0'"):
        x.swapaxes(0, axis0=1)
    assert x.view(size=(6, 4)).shape == (6, 4)
    bits = x.detach().view(dtype=mg.int64)
    np.testing.assert_array_equal(bits.numpy(), A.view(np.int64))
    with pytest.raises(TypeError, match="size= or dtype="):
        x.view(3, size=(8,))


@pytest.mark.parametrize("device", DEVICES)
def test_pytorchs_keyword_names_of_size_arguments(device):
    """torch 2.13's ``reshape(shape=)``, ``expand(size=)``, ``broadcast_to(size=)`` (method and
    function), ``repeat(repeats=)``, ``sum_to_size(size=)``: each was an unexpected keyword, and
    MAE's and DiT's ``x.reshape(shape=(n, h, w, p, p, c))`` stopped there."""
    x = _x(device, requires_grad=True)
    np.testing.assert_array_equal(x.reshape(shape=(4, 6)).numpy(), A.reshape(4, 6))
    np.testing.assert_array_equal(x.reshape(shape=[-1]).numpy(), A.reshape(-1))
    col = x[:, :1]
    for y in (col.expand(size=(2, 5, 4)), col.expand(size=[2, -1, 4]).expand(2, 5, 4, implicit=False),
              col.broadcast_to(size=(2, 5, 4)), mg.broadcast_to(col, size=(2, 5, 4))):
        np.testing.assert_array_equal(y.numpy(), np.broadcast_to(A[:, :1], (2, 5, 4)))
    np.testing.assert_array_equal(x.repeat(repeats=(1, 2, 1)).numpy(), np.tile(A, (1, 2, 1)))
    np.testing.assert_array_equal(x.repeat(repeats=2, axis=0).numpy(), np.repeat(A, 2, axis=0))  # NumPy's
    np.testing.assert_allclose(x.sum_to_size(size=(1, 3, 1)).numpy(), A.sum((0, 2), keepdims=True), rtol=1e-12)
    x.reshape(shape=(4, 6)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones_like(A))
    with pytest.raises(TypeError, match="multiple values for argument 'shape'"):
        x.reshape(4, shape=(4, 6))
    with pytest.raises(TypeError, match="unexpected keyword argument 'sizes'"):
        x.expand(sizes=(2, 3, 4))
