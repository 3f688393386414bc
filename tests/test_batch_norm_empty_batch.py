"""``batch_norm`` in training of an empty batch (N = 0), as PyTorch's: torch 2.13 answers an empty
output, leaves the running statistics as they were, counts the batch in ``num_batches_tracked``
(so ``momentum=None``'s running average of a later batch of ones is 0.5), and sends zero gradients
to weight and bias.  The engine refused it ("expected more than 1 value per channel when
training"), as it still refuses one value per channel (PyTorch's ValueError too)."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt.nn import functional as F


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_empty_batch_normalizes_to_an_empty_batch(device):
    mean, var = mg.zeros(4, device=device), mg.ones(4, device=device)
    x = mg.zeros(0, 4, 3, device=device, requires_grad=True)
    w, b = mg.ones(4, device=device, requires_grad=True), mg.zeros(4, device=device, requires_grad=True)
    y = F.batch_norm(x, mean, var, w, b, training=True)
    assert y.shape == (0, 4, 3) and mean.tolist() == [0.0] * 4 and var.tolist() == [1.0] * 4
    y.sum().backward()
    assert x.grad.shape == (0, 4, 3) and w.grad.tolist() == [0.0] * 4 and b.grad.tolist() == [0.0] * 4


def test_the_layer_counts_the_empty_batch():
    bn = mg.nn.BatchNorm1d(3, momentum=None)
    assert bn(mg.zeros(0, 3)).shape == (0, 3)
    assert bn.num_batches_tracked.item() == 1 and bn.running_mean.tolist() == [0.0] * 3
    bn(mg.ones(4, 3))
    assert bn.running_mean.tolist() == [0.5] * 3  # torch 2.13: tensor([0.5000, 0.5000, 0.5000])


def test_one_value_per_channel_is_still_refused():
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(mg.zeros(1, 4), mg.zeros(4), mg.ones(4), training=True)


# Every other empty input, as torch 2.13 answers it (found by probing the norms with empty inputs of
# each rank): a 1-D empty input, which has no channel axis, is a copy times weight[0] plus bias[0]; a
# batch of no channels, and instance_norm of samples with no spatial elements, are empty too, with the
# running statistics kept.  The engine refused the first (ValueError "at least 2-D"), divided by the
# zero channels in the second (ZeroDivisionError), and refused the third ("more than 1 spatial element").
@pytest.mark.parametrize("training", [True, False])
def test_a_1d_empty_input_answers_empty(training):
    x = mg.zeros(0, requires_grad=True)
    w, b = mg.ones(4, requires_grad=True), mg.ones(4, requires_grad=True)
    y = F.batch_norm(x, mg.zeros(4), mg.ones(4), w, b, training=training)
    assert y.shape == (0,) and y.dtype == mg.float32
    y.sum().backward()
    assert w.grad.tolist() == [0.0] * 4 and b.grad.tolist() == [0.0] * 4 and x.grad.shape == (0,)


def test_a_batch_of_no_channels_answers_empty():
    mean, var = mg.zeros(0), mg.ones(0)
    assert F.batch_norm(mg.zeros(2, 0), mean, var, training=True).shape == (2, 0)
    assert F.batch_norm(mg.zeros(2, 0, 3), None, None, training=True).shape == (2, 0, 3)


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_of_no_spatial_elements_answers_empty(use_input_stats):
    mean, var = mg.full((3,), 0.5), mg.full((3,), 2.0)
    w = mg.ones(3, requires_grad=True)
    y = F.instance_norm(mg.zeros(2, 3, 0), mean, var, w, None, use_input_stats=use_input_stats)
    assert y.shape == (2, 3, 0) and mean.tolist() == [0.5] * 3 and var.tolist() == [2.0] * 3
    y.sum().backward()
    assert w.grad.tolist() == [0.0] * 3
