"""The difference losses take their dtype from the input *and* the target, as PyTorch's kernels do.

PyTorch computes ``mse_loss``, ``smooth_l1_loss`` and ``l1_loss`` in the promoted dtype of the pair:
an integer input beside a float target is a float loss (``F.mse_loss(int64 tensor, float tensor)``
works, with a gradient for the target), ``l1_loss`` of two integer tensors is an integer loss (only its
``"mean"`` is refused), and only an integer pair meets the float kernels' refusal.  Here the input
alone decided: an integer input was refused whatever the target.  ``soft_margin_loss`` is the other
way round: PyTorch writes its loss into a tensor made like the input, so an integer input is refused
("result type Float can't be cast to the desired output type Long") and a bool one has no ``-``;
here both were computed.  And a class ``weight`` of shape (1, C) beside probability targets was
reshaped and used; PyTorch refuses it as for class indices.  Values from torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

I = [[1, 0], [2, 3]]
Y = [[0.5, 0.2], [1.0, 1.0]]


@pytest.mark.parametrize("int_dtype", [mg.int64, mg.int32, mg.uint8])
@pytest.mark.parametrize("float_dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("loss, value, grad", [
    # torch 2.13: the loss of the int input, and its gradient for the float target
    (F.mse_loss, 1.3225, [[-0.25, 0.1], [-0.5, -1.0]]),
    (F.l1_loss, 0.925, [[-0.25, 0.25], [-0.25, -0.25]]),
    (F.smooth_l1_loss, 0.53625, [[-0.125, 0.05], [-0.25, -0.25]]),
])
def test_an_integer_input_beside_a_float_target_is_a_float_loss(loss, value, grad, int_dtype, float_dtype):
    y = mg.tensor(Y, dtype=float_dtype, requires_grad=True)
    out = loss(mg.tensor(I, dtype=int_dtype), y)
    assert out.dtype == float_dtype
    np.testing.assert_allclose(out.item(), value, rtol=1e-6)
    (g,) = mg.autograd.grad(out, y)
    np.testing.assert_allclose(g.numpy(), grad, rtol=1e-6)


def test_a_bool_input_beside_a_float_target_is_a_float_mse():
    out = F.mse_loss(mg.tensor([[True, False], [True, True]]), mg.tensor(Y, dtype=mg.float32), reduction="sum")
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.item(), 0.29, rtol=1e-6)


@pytest.mark.parametrize("loss, kernel", [(F.mse_loss, "mse_cpu"), (F.smooth_l1_loss, "smooth_l1_cpu")])
def test_an_integer_pair_is_still_refused_by_the_float_kernel(loss, kernel):
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'Long\''):
        loss(mg.tensor(I), mg.tensor(I))
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'Long\''):
        loss(mg.tensor(I), mg.tensor(I, dtype=mg.int32))


def test_l1_loss_of_two_integer_tensors_is_an_integer_loss_whose_mean_is_refused():
    a, b = mg.tensor(I), mg.tensor([[0, 2], [2, 7]])
    none = F.l1_loss(a, b, reduction="none")
    assert none.dtype == mg.int64 and none.tolist() == [[1, 2], [0, 4]]
    total = F.l1_loss(a, b, reduction="sum")
    assert total.dtype == mg.int64 and total.item() == 7
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype.*Got: Long"):
        F.l1_loss(a, b)


@pytest.mark.parametrize("target", [Y, I])
def test_soft_margin_loss_refuses_an_integer_input(target):
    with pytest.raises(RuntimeError, match="result type (Double|Float) can't be cast to the desired output type Long"):
        F.soft_margin_loss(mg.tensor(I), mg.tensor(target))


def test_soft_margin_loss_refuses_a_bool_input():
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        F.soft_margin_loss(mg.tensor([True, False]), mg.tensor([1.0, -1.0]))


def test_soft_margin_loss_of_a_float_input_and_an_integer_target_still_works():
    x = mg.tensor([0.5, -2.0], requires_grad=True)
    out = F.soft_margin_loss(x, mg.tensor([1, -1]), reduction="sum")
    np.testing.assert_allclose(out.item(), np.log1p(np.exp(-0.5)) + np.log1p(np.exp(-2.0)), rtol=1e-6)


@pytest.mark.parametrize("shape", [(1, 4), (4, 1), (5,), ()])
def test_cross_entropy_with_probabilities_refuses_a_weight_not_one_per_class(shape):
    x = mg.tensor(np.linspace(-1.0, 1.0, 8).reshape(2, 4))
    p = mg.tensor(np.full((2, 4), 0.25))
    with pytest.raises(RuntimeError, match=r"weight tensor should be defined either for all 4 classes or no classes"):
        F.cross_entropy(x, p, weight=mg.tensor(np.ones(shape)))
