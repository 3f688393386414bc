"""``item()`` of several elements and ``randint`` of an empty range raise PyTorch's RuntimeError with
its words first (a ported test's ``pytest.raises(RuntimeError, match=...)`` matches), and are still
ValueErrors, as they were here.  Before: ValueError only, in other words.  torch 2.13:
``torch.tensor([1., 2.]).item()`` -> RuntimeError "a Tensor with 2 elements cannot be converted to
Scalar"; ``torch.randint(5, 5, (3,))`` -> RuntimeError "random_ expects 'from' to be less than 'to',
but got from=5 >= to=5"."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("shape, n", [((2,), 2), ((0,), 0), ((2, 3), 6)])
def test_item_of_other_than_one_element(device, shape, n):
    t = mg.zeros(shape, device=device)
    with pytest.raises(RuntimeError, match=f"^a Tensor with {n} elements cannot be converted to Scalar"):
        t.item()
    with pytest.raises(ValueError):
        t.item()
    assert mg.zeros((1, 1), device=device).item() == 0.0


def test_randint_of_an_empty_range():
    with pytest.raises(RuntimeError, match=r"^random_ expects 'from' to be less than 'to', but got from=5 >= to=5"):
        mg.randint(5, 5, (3,))
    with pytest.raises(ValueError):
        mg.randint(3, 1, (2,))
    assert mg.randint(4, 5, (3,)).tolist() == [4, 4, 4]
