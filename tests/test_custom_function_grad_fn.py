"""A custom ``autograd.Function``'s ``grad_fn`` as PyTorch shows it: ``name()`` is the class name and
``Backward`` (torch 2.13: ``EBackward``; it was ``FunctionNodeBackward0``, the engine's op class), and
what ``forward`` set on ``ctx`` is read on it (``y.grad_fn.k``, ``y.grad_fn.needs_input_grad``: PyTorch's
``grad_fn`` *is* the ctx), where it was an AttributeError.  Other nodes are unchanged.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg


class Scale(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


class ScaleSetup(mg.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


@pytest.mark.parametrize("fn", [Scale, ScaleSetup])
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpoint"])
def test_grad_fn_is_named_and_reads_the_ctx(fn, checkpointed):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (mg.checkpoint.checkpoint(fn.apply, x, 3.0, use_reentrant=False) if checkpointed
         else fn.apply(x, 3.0))
    node = y.grad_fn
    assert node.name() == f"{fn.__name__}Backward"  # torch 2.13: 'ScaleBackward'
    assert node.k == 3.0 and node.needs_input_grad == (True, False)
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        node.missing  # noqa: B018
    assert not hasattr(node, "_private")
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and node.k == 3.0


def test_other_nodes_are_unchanged():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    node = (x * 2).grad_fn
    assert node.name() == "MulBackward0" and not hasattr(node, "k") and not hasattr(node, "needs_input_grad")
