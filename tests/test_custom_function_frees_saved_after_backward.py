"""A custom ``autograd.Function`` lets go of what ``save_for_backward`` saved once backward has
read it, as every other node does (PyTorch frees every saved tensor then).

Two holders outlived the pass: the context's ``to_save`` (every tensor saved -- inputs, outputs,
intermediates) and the node's own copy of the intermediates, which the ledger does not count.
While the output tensor lived (a loss kept for logging, a model's output), each kept an array the
size of each saved tensor: the ledger reported 0 bytes held and the process held them all.
"""

from __future__ import annotations

import gc
import weakref

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import checkpoint as ck

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict", mg.float32)]


class SinTimesTwo(mg.autograd.Function):
    """Saves an intermediate (neither an input nor an output) and its input."""

    @staticmethod
    def forward(ctx, x):
        m = x.sin()
        ctx.save_for_backward(m, x)
        return m * 2

    @staticmethod
    def backward(ctx, g):
        m, x = ctx.saved_tensors
        return g * 2 * x.cos()


def run(x, kind):
    h = x * 1.5  # an intermediate input: only the node keeps its array after this function
    if kind == "checkpoint":
        y = ck.checkpoint(SinTimesTwo.apply, h, use_reentrant=False)
    else:
        y = SinTimesTwo.apply(h)
    return y, weakref.ref(mg.memory._base(h._data))


def intermediate(y):
    (m, _) = y.grad_fn.saved_tensors
    return weakref.ref(mg.memory._base(m._data))


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_saved_tensors_are_freed_by_backward_while_the_output_lives(device, dtype):
    x = mg.randn(5, 4, dtype=dtype, device=device, requires_grad=True)
    y, h_memory = run(x, "plain")
    m_memory = intermediate(y)
    gc.collect()
    assert h_memory() is not None and m_memory() is not None  # the node keeps them for backward
    y.sum().backward()
    gc.collect()
    assert h_memory() is None and m_memory() is None  # y lives on; what it saved is gone
    assert mg.allclose(x.grad, 3.0 * (1.5 * x.detach()).cos())
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_retain_graph_keeps_them_for_the_next_backward(device, dtype):
    x = mg.randn(5, 4, dtype=dtype, device=device, requires_grad=True)
    y, h_memory = run(x, "plain")
    m_memory = intermediate(y)
    y.sum().backward(retain_graph=True)
    gc.collect()
    assert h_memory() is not None and m_memory() is not None
    first = x.grad.clone()
    y.sum().backward()
    assert x.grad.equal(2 * first)
    gc.collect()
    assert h_memory() is None and m_memory() is None


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_inside_a_checkpoint_the_replayed_values_go_too(device, dtype):
    x = mg.randn(5, 4, dtype=dtype, device=device, requires_grad=True)
    y, _ = run(x, "checkpoint")
    ops = [n.op for n in mg.tape.walk(y) if isinstance(n.op, mg.autograd.function.FunctionNode)]
    assert len(ops) == 1
    y.sum().backward()
    gc.collect()
    assert not any(d[0] == "const" for d in ops[0].saved)  # the replay's intermediate: let go
    assert mg.allclose(x.grad, 3.0 * (1.5 * x.detach()).cos())
