"""Positional spellings only PyTorch has pick PyTorch's meaning.

``mg.max(x, 1, True)`` -- NumPy's third argument of ``max`` is ``out``, so a bool there is
PyTorch's ``keepdim`` -- returned the kept-dims maxima alone, silently, where ``torch.max(x, 1, True)``
is the ``(values, indices)`` pair (a program unpacking it got two rows of values).  ``mg.std(x, 1,
True)`` -- NumPy's third argument is a dtype -- was a TypeError where ``torch.std(x, 1, True)`` is
the unbiased deviation (``torch.std(x, 1, False, True)``: biased, dims kept).  torch 2.13's numbers
for the matrix below are written out."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

A = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0], [4.0, 4.0, 9.0]])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, values, indices", [("max", [5.0, 7.0, 9.0], [1, 0, 2]),
                                                   ("min", [1.0, 0.0, 4.0], [0, 1, 0])])
def test_a_bool_third_argument_of_max_and_min_is_pytorchs_keepdim(device, name, values, indices):
    x = mg.tensor(A, device=device, requires_grad=True)
    got = getattr(mg, name)(x, 1, True)
    assert isinstance(got, mg.ValuesIndices)
    assert got.values.shape == (3, 1) and got.values.numpy().ravel().tolist() == values
    assert got.indices.numpy().ravel().tolist() == indices
    (g,) = mg.autograd.grad(got.values.sum(), x)
    expected = np.zeros_like(A)
    expected[range(3), indices] = 1
    assert np.array_equal(g.numpy(), expected)
    flat = getattr(mg, name)(x, 1, False)
    assert flat.values.shape == (3,) and flat.indices.numpy().tolist() == indices


def test_numpys_spellings_keep_numpys_meaning():
    x = mg.tensor(A)
    assert np.array_equal(mg.max(x, 1, None).numpy(), [5.0, 7.0, 9.0])  # NumPy's out=None
    assert np.array_equal(mg.max(x, 1, None, True).numpy(), [[5.0], [7.0], [9.0]])  # np.max(a, 1, None, True)
    assert np.array_equal(mg.max(x, 1, keepdims=True).numpy(), [[5.0], [7.0], [9.0]])
    assert np.allclose(mg.std(x, 1).numpy(), A.std(axis=1))  # ddof 0
    with pytest.raises(TypeError, match="keepdim"):
        mg.max(x, 1, 3)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_bool_third_argument_of_std_and_var_is_pytorchs_unbiased(device):
    x = mg.tensor(A, device=device)
    # torch.std(t, 1, True), torch.std(t, 1, False, True), torch.var(t, None, True)
    np.testing.assert_allclose(mg.std(x, 1, True).numpy(), [2.0816659994661326, 3.5118845842842465,
                                                            2.8867513459481287], rtol=1e-15)
    got = mg.std(x, 1, False, True)
    assert got.shape == (3, 1)
    np.testing.assert_allclose(got.numpy().ravel(), [1.699673171197595, 2.8674417556808756,
                                                     2.357022603955158], rtol=1e-15)
    np.testing.assert_allclose(mg.var(x, None, True).numpy(), 8.11111111111111, rtol=1e-15)
    with pytest.raises(TypeError, match="unbiased given twice"):
        mg.var(x, 1, True, unbiased=False)
