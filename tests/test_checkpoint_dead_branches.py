"""A checkpointed function may compute values it then drops -- a branch nothing it returns
depends on -- and write in place into them, or into what they read, as a run without
checkpointing may: no backward ever reaches those ops, so no error comes from them.

The replay ran every op of the segment, and refused the ones a write had made stale, so the
checkpointed run raised where the plain run (and torch 2.13's ``checkpoint``) gave the
gradient.  Now a node replayed only for its own saved values, and stale, is left unfilled: the
error comes if a backward reaches it -- where the plain run raises it too.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F


def softmax_written_through_a_view(x, w, c):
    p = (x @ w).softmax(-1)
    p[0].mul_(2)  # softmax saved p: a backward through p would refuse it
    return F.dropout((x @ w).sin(), 0.25) * 2


def softmax_written_through_detach(x, w, c):
    p = (x @ w).softmax(-1)
    p.detach()[0].mul_(2)
    return (x @ w).tanh()


def product_of_a_constant_written_later(x, w, c):
    _ = x * c  # the product saves c, which is written after the forward pass (below)
    return (x @ w).tanh()


def written_and_reached(x, w, c):
    p = (x @ w).softmax(-1)
    p.detach()[0].mul_(2)
    return p * 1.0


def gradients(fn, wrap, device, dtype):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    c = mg.randn(4, dtype=dtype, device=device)
    mg.manual_seed(1)
    y = wrap(fn, x, w, c)
    c.add_(1.0)
    (y * y).sum().backward()
    return [x.grad.cpu().numpy(), w.grad.cpu().numpy(), mg.rand(2).numpy()]


def plain(fn, *args):
    return fn(*args)


def checkpointed(fn, *args):
    return ck.checkpoint(fn, *args, use_reentrant=False)


def nested(fn, *args):
    return ck.checkpoint(lambda *a: ck.checkpoint(fn, *a) + 0.0, *args)


def save_everything(fn, *args):
    return ck.remat(fn, ck.save_everything)(*args)


@pytest.mark.parametrize("fn", [softmax_written_through_a_view, softmax_written_through_detach,
                                product_of_a_constant_written_later])
@pytest.mark.parametrize("wrap", [checkpointed, nested, save_everything])
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64)])
def test_a_dropped_branch_written_in_place_gives_the_plain_gradients(fn, wrap, device, dtype):
    expected = gradients(fn, plain, device, dtype)
    for e, g in zip(expected, gradients(fn, wrap, device, dtype)):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("wrap", [plain, checkpointed, nested])
def test_a_written_value_that_backward_reaches_is_still_refused(wrap):
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        gradients(written_and_reached, wrap, "cpu", mg.float64)
