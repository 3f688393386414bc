"""A checkpointed function returns a view of its input, and the caller writes into it.

``a, s = checkpoint(lambda t: (t.T, (t * 2.0).sum()), h)``, then ``a.mul_(2.0)`` and a
backward: the write goes into ``h``'s memory and moves its version, but no op of the
function saved ``h`` -- a view's backward reads nothing -- so the plain run, and torch
2.13's ``checkpoint`` (which replays only when a saved tensor is unpacked), give the
gradient.  The segment refused: the backward reached the view's node, which it replays
for its own saved values (none), and it checked every kept value the node read.  A node
is refused now for a kept value it holds, or reads because it must run; where a node of
the function did save the written input, the error comes as without checkpointing.

And where the refused node is the one the backward reaches first (``t * t`` returned, ``t``
written through ``.data``), the replay it started returned the node's unfilled values: a
``TypeError`` inside the op's backward.  It raises the ``CheckpointError`` now.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck

VIEWS = {
    "transpose": lambda t: t.T,
    "transposed_twice_sliced": lambda t: t.T.T[:, 1:],
    "diagonal": lambda t: t.diagonal(),
    "row": lambda t: t[1],
    "reshape": lambda t: t.reshape(-1),
    "unsqueeze": lambda t: t.unsqueeze(0),
}
WRITES = {
    "mul_": lambda a: a.mul_(2.0),
    "zero_": lambda a: a.zero_(),
    "through_a_view_of_it": lambda a: a[..., :1].add_(1.0),
    "no_grad_fill_": lambda a: _under_no_grad(lambda: a.fill_(0.5)),
}
WRAPS = {
    "checkpoint": lambda fn: lambda t: ck.checkpoint(fn, t),
    "nested": lambda fn: lambda t: ck.checkpoint(lambda u: ck.checkpoint(fn, u), t),
    "save_everything": lambda fn: ck.remat(fn, ck.save_everything),
    "save_matmuls": lambda fn: ck.remat(fn, ck.save_matmuls),
    "offload": lambda fn: ck.remat(fn, ck.offload_to_host(ck.save_everything)),
}


def _under_no_grad(write):
    with mg.no_grad():
        write()


def gradients(view, write, wrap, device, dtype, saving=False):
    def fn(t):
        other = (t * t).sum() if saving else (t * 2.0).sum() + (w * 3.0).tanh().sum()  # t * t saves t
        return view(t), other

    mg.manual_seed(0)
    x = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    h = x * 1.0
    a, other = wrap(fn)(h)
    write(a)
    ((a * a).sum() + other).backward()
    return [x.grad.cpu().numpy(), w.grad.cpu().numpy()]


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_a_returned_view_of_the_input_written_after_the_forward_pass(view, write, wrap):
    expected = gradients(VIEWS[view], WRITES[write], lambda fn: fn, "cpu", mg.float64)
    got = gradients(VIEWS[view], WRITES[write], WRAPS[wrap], "cpu", mg.float64)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)])
def test_on_every_device_and_dtype(wrap, device, dtype):
    expected = gradients(VIEWS["transposed_twice_sliced"], WRITES["mul_"], lambda fn: fn, device, dtype)
    got = gradients(VIEWS["transposed_twice_sliced"], WRITES["mul_"], WRAPS[wrap], device, dtype)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_an_input_a_node_saved_is_still_refused_as_without_checkpointing(wrap):
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        gradients(VIEWS["transpose"], WRITES["mul_"], lambda fn: fn, "cpu", mg.float64, saving=True)
    with pytest.raises(RuntimeError, match="modified in place after the forward pass"):
        gradients(VIEWS["transpose"], WRITES["mul_"], WRAPS[wrap], "cpu", mg.float64, saving=True)


@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("write", ["data", "data_view"])
def test_a_refused_node_the_backward_reaches_first_raises_the_checkpoint_error(wrap, write):
    # t * t saves t, written through .data after the forward pass: the replay the backward starts
    # at that very node refuses it -- and returned its unfilled values, a TypeError in the op's
    # backward, where the error says what happened (a node reached later raised it already)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    h = x * 1.0
    y = WRAPS[wrap](lambda t: t * t)(h)
    (h.data if write == "data" else h.data[0]).mul_(2.0)
    with pytest.raises(ck.CheckpointError, match="written after the forward pass through an alias"):
        y.sum().backward()
