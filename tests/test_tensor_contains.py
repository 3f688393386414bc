"""``element in t`` is PyTorch's ``Tensor.__contains__``: whether any entry equals ``element``.  There was
none, so Python walked the first dim and asked the truth of each row: ``2.0 in mg.ones(2, 2)`` and
``mg.tensor([1., 2.]) in mg.tensor([[1., 2.]])`` raised ValueError "the truth value of a tensor with 2
elements is ambiguous".  torch 2.13: False, True; ``1 in torch.ones(2, 2)`` True, ``True in
torch.tensor([False])`` False, a NumPy scalar works, a string is a RuntimeError ("Tensor.__contains__
only supports Tensor or scalar, but you passed in a <class 'str'>.")."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_membership_asks_every_entry(device):
    grid = mg.ones(2, 2, device=device)
    assert (2.0 in grid) is False and (1 in grid) is True
    assert (mg.tensor([1.0, 2.0], device=device) in mg.tensor([[1.0, 2.0]], device=device)) is True
    # broadcast, as PyTorch's: any entry of the comparison
    assert (mg.tensor([3.0, 2.0], device=device) in mg.tensor([[1.0, 2.0]], device=device)) is True
    assert (3 in mg.tensor([1, 2, 3], device=device)) is True and (np.float64(2.0) in mg.tensor([2.0], device=device))
    assert (True in mg.tensor([False], device=device)) is False
    labels = mg.tensor([[0, 1], [2, 3]], device=device)
    assert 0 in labels and 4 not in labels


def test_membership_of_something_else_is_refused():
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in mg.ones(2)  # noqa: B015


@pytest.mark.parametrize("values", [[1.0, 2.0], []])
def test_the_truth_of_many_or_no_values_is_pytorch_s_runtime_error(values):
    # torch 2.13: RuntimeError "Boolean value of Tensor with more than one value is ambiguous" (and "with no
    # values"); the engine raised ValueError, which it still is too (NumPy's class for the same question),
    # in words of its own, which PyTorch's test_is_nonzero and assertRaisesRegex callers did not match
    many = "more than one value" if values else "no values"
    with pytest.raises(RuntimeError, match=f"Boolean value of Tensor with {many} is ambiguous"):
        bool(mg.tensor(values))
    with pytest.raises(RuntimeError, match=f"Boolean value of Tensor with {many} is ambiguous"):
        mg.tensor(values).is_nonzero()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(mg.tensor(values))
