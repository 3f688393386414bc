"""PyTorch's ``grad_fn.saved_tensors`` on a custom Function's node (its ``grad_fn`` is its ctx): what
``save_for_backward`` saved -- None where None was saved, a leaf input as the leaf itself, an intermediate
and a pack hook's round trip as values -- and PyTorch's RuntimeError once backward freed them; the engine's
own nodes have none (an AttributeError, as ``MulBackward0``'s).  Before: an AttributeError on every node.

Expected values: torch 2.13 on the same program.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices


class Saving(mg.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, k):
        ctx.save_for_backward(a, None, b * 2, a * b)
        ctx.k = k
        return a * b, a + b

    @staticmethod
    def backward(ctx, g, g2):
        return g, g, None


class SavesItsOutput(mg.autograd.Function):
    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, g):
        result, = ctx.saved_tensors
        return g * result


@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict-f32", mg.float32)])
def test_a_custom_functions_grad_fn_shows_what_it_saved(device, dtype):
    a = mg.ones(2, dtype=dtype, device=device, requires_grad=True)
    b = mg.full((2,), 3.0, dtype=dtype, device=device, requires_grad=True)
    y, z = Saving.apply(a, b, 5)
    saved = y.grad_fn.saved_tensors
    assert z.grad_fn is y.grad_fn and y.grad_fn.k == 5
    assert [None if t is None else t.tolist() for t in saved] == [[1.0, 1.0], None, [6.0, 6.0], [3.0, 3.0]]
    assert saved[0] is a  # the leaf itself, as PyTorch's
    (y.sum() + z.sum()).backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_the_saved_output_and_pack_hooks():
    x = mg.tensor([0.0, 1.0], dtype=mg.float64, requires_grad=True)
    y = SavesItsOutput.apply(x)
    assert y.grad_fn.saved_tensors[0].tolist() == y.tolist()
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda t: t / 10):
        y, z = Saving.apply(x, x * 1, None)
    assert [None if t is None else t.tolist() for t in y.grad_fn.saved_tensors] == [
        [0.0, 1.0], None, [0.0, 2.0], [0.0, 1.0]]


def test_the_engines_own_nodes_have_none():
    y = mg.ones(2, requires_grad=True) * 2
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute 'saved_tensors'"):
        y.grad_fn.saved_tensors
