"""``relu`` passes the gradient on at a NaN input, as PyTorch's ``threshold_backward`` (it zeroes
where the result is ``<= 0``, which a NaN is not): the mask ``out > 0`` stopped it there.  Every
spelling (``mg.relu``, ``F.relu``, ``inplace=True``, ``nn.ReLU``) and both modes follow the op.

Expected values are torch 2.13's (CPU; float32 and float64, 4 elements or 24), written in:
``torch.relu(x).sum().backward()`` at x = [nan, -1, 0, 2] gives x.grad = [1, 0, 0, 1], and
``torch.func.jvp(torch.relu, (x,), (ones,))`` the tangent [1, 0, 0, 1].
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

NAN = math.nan
F = mg.nn.functional
X, GRAD = [NAN, -1.0, 0.0, 2.0], [1.0, 0.0, 0.0, 1.0]
SPELLINGS = [mg.relu, F.relu, mg.nn.ReLU(), lambda x: F.relu(x * 1, inplace=True)]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("relu", SPELLINGS, ids=["mg.relu", "F.relu", "nn.ReLU", "inplace"])
def test_a_nan_input_passes_the_gradient(relu, dtype, device):
    assert_torch_gradients(relu, [X], [GRAD], dtype, device)


def test_the_second_derivative_is_zero():
    x = mg.tensor(X, requires_grad=True)
    (g,) = mg.autograd.grad(mg.relu(x).sum(), x, create_graph=True)
    assert g.tolist() == GRAD
    assert mg.autograd.grad((g * x).sum(), x)[0].tolist() == GRAD  # d/dx of sum(relu'(x) * x): the mask
