"""``gaussian_nll_loss`` takes a Python float ``var``, one variance for every element, as PyTorch's.

torch 2.13's ``F.gaussian_nll_loss(input, target, 2.0)`` reads the float as ``2.0 * ones_like(input)``
(refusing a negative one with "var has negative entry/entries"); here a float var was refused as a
0-d tensor that does not fit the input ("var of shape () does not fit input of shape (3, 4)").  Found
by running the loss on torch 2.13 and here with the same arguments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

X = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
Y = np.linspace(0.5, -0.5, 12).reshape(3, 4)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("var", [2.0, 0.25, 1e-9, 0.0])
def test_a_float_var_is_one_variance_for_every_element(var, reduction, full):
    x = mg.tensor(X, requires_grad=True)
    loss = F.gaussian_nll_loss(x, mg.tensor(Y), var, full=full, reduction=reduction)
    v = max(var, 1e-6)  # clamped at eps, as PyTorch's
    want = 0.5 * (np.log(v) + (X - Y) ** 2 / v) + (0.5 * math.log(2 * math.pi) if full else 0.0)
    want = {"none": want, "sum": want.sum(), "mean": want.mean()}[reduction]
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)
    loss.sum().backward()
    scale = 1.0 if reduction != "mean" else 1.0 / X.size
    np.testing.assert_allclose(x.grad.numpy(), scale * (X - Y) / v, rtol=1e-12)


def test_a_float_var_gives_the_same_loss_as_a_full_tensor_var_and_keeps_the_input_dtype():
    x = mg.tensor(X, dtype=mg.float32)
    y = mg.tensor(Y, dtype=mg.float32)
    by_float = F.gaussian_nll_loss(x, y, 0.5, reduction="none")
    assert by_float.dtype == mg.float32 and by_float.shape == (3, 4)
    by_tensor = F.gaussian_nll_loss(x, y, mg.full((3, 4), 0.5), reduction="none")
    np.testing.assert_array_equal(by_float.numpy(), by_tensor.numpy())
    np.testing.assert_allclose(mg.nn.GaussianNLLLoss()(x, y, 0.5).item(), by_float.mean().item(), rtol=1e-6)


def test_a_negative_float_var_is_refused():
    with pytest.raises(ValueError, match="var has negative entr"):
        F.gaussian_nll_loss(mg.tensor(X), mg.tensor(Y), -1.0)
