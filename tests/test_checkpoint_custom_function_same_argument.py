"""A custom ``mg.autograd.Function`` given one tensor twice, inside a checkpoint whose replay runs it.

``ScaledProduct.apply(h, h)`` saves both of its inputs, which are one tensor: the node saves
its first input and reads it for both.  A replay runs the user's ``forward`` again on a
Tensor wrapped around each replayed input -- two wrappers for the one argument -- and
worked out again where each saved tensor is found: input 0 and input 1, the second of which
the node's saved slots never held.  Its backward got None for it and failed inside the
user's code (``'NoneType' object has no attribute 'dtype'``) where a run without
checkpointing (and torch 2.13's ``checkpoint``) gives the gradient.  Where an input or an
output is found stays what the first ``forward`` found now; a replay makes only the
intermediates again.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_custom_functions import ScaledProduct  # tests/checkpoint_custom_functions.py

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F


def program(x, w):
    h = F.dropout(x @ w, 0.25)
    a, mask = ScaledProduct.apply(h, h)  # one argument given twice
    b, _ = ScaledProduct.apply(h, a + mask)  # reads the first one's output: the replay runs it
    return (b.tanh() * a).sum()


WRAPS = {
    "plain": lambda fn: fn,
    "checkpoint": lambda fn: lambda *a: ck.checkpoint(fn, *a),
    "nested": lambda fn: lambda *a: ck.checkpoint(lambda *b: ck.checkpoint(fn, *b) * 1.0, *a),
    "save_matmuls": lambda fn: ck.remat(fn, ck.save_matmuls),
    "save_everything": lambda fn: ck.remat(fn, ck.save_everything),
    "offload": lambda fn: ck.remat(fn, ck.offload_to_host(ck.save_matmuls)),
}


def gradients(wrap, device, dtype, double=False):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    mg.manual_seed(1)
    loss = WRAPS[wrap](program)(x, w)
    if double:
        (gx,) = mg.grad(loss, [x], create_graph=True)
        loss = (gx * gx).sum()
    loss.backward()
    return [x.grad.cpu().numpy(), w.grad.cpu().numpy(), mg.rand(2).numpy()]


@pytest.mark.parametrize("wrap", sorted(set(WRAPS) - {"plain"}))
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                          ("strict-f32", mg.float32)])
def test_one_argument_given_twice_gives_the_plain_gradients(wrap, device, dtype):
    for e, g in zip(gradients("plain", device, dtype), gradients(wrap, device, dtype)):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("wrap", ["checkpoint", "save_matmuls"])
def test_and_its_second_derivatives(wrap):
    for e, g in zip(gradients("plain", "cpu", mg.float64, double=True),
                    gradients(wrap, "cpu", mg.float64, double=True)):
        np.testing.assert_array_equal(g, e)
