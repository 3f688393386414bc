"""``zero_grad(set_to_none=False)`` of a gradient that is a view: zeros written through the view.

A gradient assigned as a slice of one flat buffer (``p.grad = flat[0:6].view(2, 3)``, as a
bucketed all-reduce lays them out) has no history, but both ``Optimizer.zero_grad`` and
``Module.zero_grad`` called ``detach_()`` on every gradient, and ``detach_`` refuses a view:
``RuntimeError: Can't detach views in-place``.  PyTorch detaches only a gradient with history
(built with ``create_graph``) and otherwise just clears ``requires_grad``, so the buffer is zeroed
in place.  Found by running PyTorch's hand-written optimizer tests against the engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def _model_with_bucket_gradients():
    model = mg.nn.Linear(3, 2)
    flat = mg.tensor(np.arange(1.0, 9.0, dtype=np.float32))
    model.weight.grad = flat[0:6].view(2, 3)
    model.bias.grad = flat[6:8]
    return model, flat


@pytest.mark.parametrize("how", ["optimizer", "module"])
def test_zero_grad_keeps_a_view_gradient_and_zeros_its_buffer(how):
    model, flat = _model_with_bucket_gradients()
    grads = [model.weight.grad, model.bias.grad]
    if how == "optimizer":
        mg.optim.SGD(model.parameters(), lr=0.1).zero_grad(set_to_none=False)
    else:
        model.zero_grad(set_to_none=False)
    assert model.weight.grad is grads[0] and model.bias.grad is grads[1]
    np.testing.assert_array_equal(flat.numpy(), np.zeros(8, dtype=np.float32))


@pytest.mark.parametrize("how", ["optimizer", "module"])
def test_a_gradient_with_history_still_leaves_the_tape(how):
    model = mg.nn.Linear(3, 2)
    x = mg.tensor(np.ones((1, 3), dtype=np.float32))
    (model(x) ** 2).sum().backward(create_graph=True)
    assert model.weight.grad.requires_grad
    if how == "optimizer":
        mg.optim.SGD(model.parameters(), lr=0.1).zero_grad(set_to_none=False)
    else:
        model.zero_grad(set_to_none=False)
    for p in model.parameters():
        assert p.grad.grad_fn is None and not p.grad.requires_grad
        np.testing.assert_array_equal(p.grad.numpy(), np.zeros(p.shape, dtype=np.float32))


def test_the_next_backward_accumulates_into_the_zeroed_view():
    model, flat = _model_with_bucket_gradients()
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad(set_to_none=False)
    model(mg.tensor(np.ones((1, 3), dtype=np.float32))).sum().backward()
    np.testing.assert_array_equal(model.bias.grad.numpy(), [1.0, 1.0])
