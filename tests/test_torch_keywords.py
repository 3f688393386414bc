"""PyTorch's keyword names for arguments the functions already take under NumPy's names.

A program ported by the rename calls ``mg.tril(x, diagonal=1)``, ``mg.roll(x, shifts=1, dims=0)``,
``mg.arange(end=5)``, ``x.transpose(dim0=0, dim1=1)``...; each was a TypeError ("unexpected
keyword argument"). The keyword names exist only in PyTorch, so accepting them changes no
NumPy spelling's meaning (``docs/from-pytorch.md``: the spelling picks the meaning).
Expected values: the same calls on ``torch`` (2.13) with ``x = torch.arange(16.).reshape(4, 4)``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = np.arange(16.0).reshape(4, 4)


def _x(requires_grad: bool = False) -> mg.Tensor:
    return mg.tensor(X, requires_grad=requires_grad)


@pytest.mark.parametrize("call, expected", [
    (lambda x: mg.tril(x, diagonal=1), np.tril(X, 1)),
    (lambda x: x.triu(diagonal=-1), np.triu(X, -1)),
    (lambda x: mg.diag(x, diagonal=1), [1.0, 6.0, 11.0]),
    (lambda x: mg.diagonal(x, offset=1, dim1=1, dim2=0), [4.0, 9.0, 14.0]),
    (lambda x: x.diagonal(dim1=0, dim2=1), [0.0, 5.0, 10.0, 15.0]),
    (lambda x: mg.roll(x, shifts=1, dims=0), np.roll(X, 1, 0)),
    (lambda x: mg.roll(x, shifts=(1, 2), dims=(0, 1)), np.roll(X, (1, 2), (0, 1))),
    (lambda x: mg.flip(x, dims=[0]), X[::-1]),
    (lambda x: mg.permute(x, dims=(1, 0)), X.T),
    (lambda x: x.permute(dims=(1, 0)), X.T),
    (lambda x: mg.tile(x[:1, :2], dims=(2, 2)), [[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]]),
    (lambda x: mg.transpose(x, dim0=0, dim1=1), X.T),
    (lambda x: x.transpose(dim0=1, dim1=0), X.T),
    (lambda x: mg.clip(x, max=3.0)[0], [0.0, 1.0, 2.0, 3.0]),
    (lambda x: x.clip(min=14.0)[3], [14.0, 14.0, 14.0, 15.0]),
    (lambda x: mg.pow(x, exponent=2)[1], [16.0, 25.0, 36.0, 49.0]),
    (lambda x: mg.mul(x, other=2)[0], [0.0, 2.0, 4.0, 6.0]),
    (lambda x: x.div(other=2)[0], [0.0, 0.5, 1.0, 1.5]),
    (lambda x: mg.sub(x, other=1, alpha=2)[0], [-2.0, -1.0, 0.0, 1.0]),
    (lambda x: mg.add(x, other=1)[0], [1.0, 2.0, 3.0, 4.0]),
    (lambda x: mg.tensordot(x, x, dims=([0], [1]))[0], (X.T @ X.T)[0]),
    (lambda x: mg.split(x, split_size_or_sections=[1, 3], dim=1)[1][0], [1.0, 2.0, 3.0]),
    (lambda x: mg.split(x, split_size_or_sections=3)[1], X[3:]),   # PyTorch's: pieces of 3
    (lambda x: x.split(split_size=3, dim=1)[1][:, 0], [3.0, 7.0, 11.0, 15.0]),
    (lambda x: mg.einsum("ij,jk->ik", [x, x]), X @ X),
    (lambda x: mg.meshgrid([x[0], x[1, :2]], indexing="ij")[1], [[4.0, 5.0]] * 4),
])
def test_pytorch_keyword_names_give_pytorchs_answer(call, expected):
    np.testing.assert_array_equal(call(_x()).numpy(), np.asarray(expected, dtype=np.float64))


def test_gradients_flow_through_the_renamed_keywords():
    x = _x(requires_grad=True)
    (mg.tril(x, diagonal=-1).sum() + mg.roll(x, shifts=1, dims=0)[0, 0] * 3).backward()
    expected = np.tril(np.ones((4, 4)), -1)
    expected[3, 0] += 3  # roll moved x[3, 0] to [0, 0]
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_creation_takes_pytorchs_size_end_and_steps():
    assert mg.zeros(size=(2, 3)).shape == (2, 3) and mg.ones(size=[2]).shape == (2,)
    assert mg.empty(size=(1, 2)).shape == (1, 2)
    full = mg.full(size=(2,), fill_value=3.0)
    assert full.tolist() == [3.0, 3.0] and full.dtype == mg.float32
    assert mg.arange(end=4).tolist() == [0, 1, 2, 3] and mg.arange(start=1, end=7, step=2).tolist() == [1, 3, 5]
    np.testing.assert_allclose(mg.linspace(start=0, end=1, steps=5).numpy(), [0, 0.25, 0.5, 0.75, 1])
    assert mg.linspace(0, 1).shape == (50,)  # NumPy's spelling keeps NumPy's default num


@pytest.mark.parametrize("call", [
    lambda x: mg.tril(x, k=1, diagonal=1),
    lambda x: mg.zeros(2, size=(3,)),
    lambda x: mg.arange(0, 5, end=3),
    lambda x: mg.linspace(0, 1, 5, steps=4),
    lambda x: mg.full((2,), 1.0, size=(3,)),
    lambda x: mg.split(x, 2, split_size_or_sections=2),
])
def test_one_argument_under_two_names_is_an_error(call):
    with pytest.raises(TypeError):
        call(_x())


X3 = [[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0]]


@pytest.mark.parametrize("call, values, indices", [
    # torch.max(x, 1, keepdim=True) and the like: keepdim= is PyTorch's spelling, so PyTorch's pair;
    # mg.max gave NumPy's maxima alone, and mg.median ignored keepdim= (torch 2.13's values)
    (lambda x: mg.max(x, 1, keepdim=True), [[4.0], [9.0], [8.0]], [[2], [1], [3]]),
    (lambda x: mg.min(x, 0, keepdim=True), [[3.0, 1.0, 2.0, 1.0]], [[0, 0, 1, 0]]),
    (lambda x: mg.median(x, 1, keepdim=True), [[1.0], [5.0], [5.0]], [[3], [0], [0]]),
    (lambda x: mg.nanmedian(x, 0, keepdim=True), [[5.0, 3.0, 4.0, 6.0]], [[1, 2, 0, 1]]),
])
def test_keepdim_beside_a_positional_dim_is_pytorchs_pair(call, values, indices):
    out = call(mg.tensor(X3))
    np.testing.assert_array_equal(out.values.numpy(), values)
    np.testing.assert_array_equal(out.indices.numpy(), indices)


def test_keepdims_and_a_positional_axis_alone_stay_numpys():
    x = mg.tensor(X3)
    np.testing.assert_array_equal(mg.max(x, 1, keepdims=True).numpy(), [[4.0], [9.0], [8.0]])
    np.testing.assert_array_equal(mg.median(x, 1).numpy(), [2.0, 5.5, 5.0])  # NumPy: mean of the middle two
