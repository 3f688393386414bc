"""``mg.sort(x, 0, descending=True)`` sorts along dim 0, as ``torch.sort(x, 0, descending=True)``.

``descending=`` is PyTorch's keyword, so it selects PyTorch's ``(values, indices)``; the dim given
positionally beside it was dropped and the sort ran along the last dim, a silently wrong answer
(``mg.argsort(x, 0, descending=True)`` too).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

NAN = float("nan")
X = [[1.5, -2.5, 0.5], [3.0, -0.0, 2.0]]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_positional_dim_beside_descending_is_the_dim_sorted(device):
    x = mg.tensor(X, device=device)
    values, indices = mg.sort(x, 0, descending=True)
    assert values.numpy().tolist() == [[3.0, -0.0, 2.0], [1.5, -2.5, 0.5]]   # torch 2.13
    assert indices.numpy().tolist() == [[1, 1, 1], [0, 0, 0]]
    assert mg.argsort(x, 0, descending=True).numpy().tolist() == [[1, 1, 1], [0, 0, 0]]
    assert mg.argsort(x, -2, descending=True).numpy().tolist() == [[1, 1, 1], [0, 0, 0]]
    assert mg.sort(x, 1, descending=True).values.numpy().tolist() == [[1.5, 0.5, -2.5], [3.0, 2.0, -0.0]]


def test_nan_leads_a_descending_sort_along_the_positional_dim_and_the_gradient_follows():
    x = mg.tensor([[1.0, NAN], [NAN, 2.0], [0.5, 3.0]], requires_grad=True)
    values, indices = mg.sort(x, 0, descending=True)
    np.testing.assert_equal(values.detach().numpy(), [[NAN, NAN], [1.0, 3.0], [0.5, 2.0]])  # torch 2.13
    assert indices.numpy().tolist() == [[1, 0], [0, 2], [2, 1]]
    (values.nan_to_num(0.0) * mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    assert x.grad.numpy().tolist() == [[3.0, 0.0], [0.0, 6.0], [5.0, 4.0]]   # nan_to_num passes none at NaN


def test_without_descending_the_positional_argument_is_still_numpys_axis():
    x = mg.tensor(X)
    assert mg.sort(x, 0).numpy().tolist() == [[1.5, -2.5, 0.5], [3.0, -0.0, 2.0]]
    assert mg.argsort(x, 0).numpy().tolist() == [[0, 0, 0], [1, 1, 1]]
