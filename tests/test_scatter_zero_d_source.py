"""A zero-dim ``src`` of ``scatter``, ``scatter_add`` and ``scatter_reduce`` is PyTorch's one-element
source, and a ``src`` or input of another rank than ``index`` is PyTorch's RuntimeError.

PyTorch counts a 0-d tensor as one of one element: ``zeros(3).scatter(0, tensor([1]), tensor(2.5))``
is ``[0, 2.5, 0]``.  Here it was an IndexError ("too many indices for a tensor of dimension 0"),
a 2-d index with a 0-d or 1-d ``src`` an IndexError from inside the rank check ("tuple index out of
range"), and a 2-d ``src`` with a 1-d index wrote its first element where PyTorch refuses.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")

DEVICES = ["cpu", "strict", "strict-f32"]
WEIGHTS = [1.0, 2.0, 3.0]


@pytest.mark.parametrize("device", DEVICES)
def test_a_zero_d_source_is_one_element_with_its_gradient(device):
    # torch 2.13: y [0, 2.5, 0], x.grad [1, 0, 3], s.grad 2 (scatter); y [0, 0, 2.5], s.grad 3 (scatter_add)
    x = mg.zeros(3, device=device, requires_grad=True)
    s = mg.tensor(2.5, device=device, requires_grad=True)
    y = x.scatter(0, mg.tensor([1], device=device), s)
    (y * mg.tensor(WEIGHTS, device=device)).sum().backward()
    assert y.cpu().tolist() == [0.0, 2.5, 0.0] and x.grad.cpu().tolist() == [1.0, 0.0, 3.0] and s.grad.item() == 2.0
    s2 = mg.tensor(2.5, device=device, requires_grad=True)
    y2 = mg.zeros(3, device=device).scatter_add(0, mg.tensor([2], device=device), s2)
    (y2 * mg.tensor(WEIGHTS, device=device)).sum().backward()
    assert y2.cpu().tolist() == [0.0, 0.0, 2.5] and s2.grad.item() == 3.0
    one = mg.tensor([1], device=device)
    y3 = mg.zeros(3, device=device).scatter_reduce(0, one, mg.tensor(2.5, device=device), "amax")
    assert y3.cpu().tolist() == [0.0, 2.5, 0.0]
    y4 = mg.zeros((), device=device).scatter(0, one - 1, mg.tensor([2.5], device=device))  # (a 0-d input too)
    np.testing.assert_array_equal(y4.cpu().numpy(), 2.5)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_source_of_another_rank_than_the_index_is_refused(device):
    def t(v):
        return mg.tensor(v, device=device)

    for call in (lambda: mg.zeros(2, 3, device=device).scatter(1, t([[1]]), t(2.5)),
                 lambda: mg.zeros(3, device=device).scatter(0, t([1]), mg.ones(2, 2, device=device)),
                 lambda: mg.zeros(2, 3, device=device).scatter(1, t([[1]]), mg.ones(3, device=device)),
                 lambda: mg.zeros(2, 3, device=device).scatter_add(1, t([[1]]), mg.ones(3, device=device))):
        with pytest.raises(RuntimeError, match="same number of dimensions as src tensor"):
            call()
    with pytest.raises(RuntimeError, match="index is longer than src"):
        mg.zeros(3, device=device).scatter(0, t([1, 2]), t(2.5))
    with pytest.raises(RuntimeError, match="same number of dimensions as input tensor"):  # (gather's words)
        mg.zeros(2, 3, device=device).gather(1, t([1]))
