"""Once its forward pass is over, a checkpoint segment tree holds its nodes weakly (so a dropped
graph dies with its last tensor): nothing a backward still to come needs may go with a node that died.

Each test runs with the garbage collector off -- what reference counting frees is what goes -- and
compares the gradients, bitwise, with the same program run without checkpointing.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_steps import gc_paused as collector_off  # (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64)]


def leaf(device, dtype):
    mg.manual_seed(0)
    return mg.randn(5, 4, dtype=dtype, device=device, requires_grad=True)


def three_outputs(t):
    # the first op's output is returned alone: dropping it kills the tree's first node
    return t.sin(), t.cos() * 2.0, t.exp() * 3.0


def nested_three_outputs(t):
    return ck.checkpoint(three_outputs, t, use_reentrant=False)


@pytest.mark.parametrize("fn", [three_outputs, nested_three_outputs], ids=["flat", "nested"])
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_dropping_the_output_of_the_first_node_keeps_the_tree_for_the_others(fn, device, dtype):
    """The tree waits for the backward of each returned tensor still alive made at or after its
    first node -- also once that node died with the one tensor that reached it."""
    with collector_off():
        x = leaf(device, dtype)
        _, b, c = fn(x)
        b.sum().backward()
        c.sum().backward()
        expected = x.grad.numpy().copy()
        x.grad = None
        a, b, c = ck.checkpoint(fn, x, use_reentrant=False)
        del a
        b.sum().backward()
        c.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), expected)


def two_outputs(t):
    return t.sin() * 2.0, t.cos() * 3.0


def nested_two_outputs(t):
    return ck.checkpoint(two_outputs, t, use_reentrant=False)


@pytest.mark.parametrize("fn", [two_outputs, nested_two_outputs], ids=["flat", "nested"])
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_tensor_made_from_a_dropped_output_still_backwards_after_the_other(fn, device, dtype):
    """``a2 = a * 2; del a``: ``a2`` reaches ``a``'s node, so the tree still waits for a backward
    through it once ``b``'s is over (as PyTorch's checkpoint does) -- the returned tensor died,
    not its graph."""
    with collector_off():
        x = leaf(device, dtype)
        results = []
        for run in (fn, lambda t: ck.checkpoint(fn, t, use_reentrant=False)):
            x.grad = None
            a, b = run(x)
            a2 = a * 2.0
            del a
            b.sum().backward()
            a2.sum().backward()
            results.append(x.grad.numpy().copy())
        np.testing.assert_array_equal(results[1], results[0])


def test_the_tree_lets_go_when_the_tensor_made_from_a_dropped_output_dies():
    """... and lets its kept values go when that graph dies, without the garbage collector."""
    with collector_off(), mg.memory.track():
        x = leaf("cpu", mg.float64)
        h = x * 1.0
        before = mg.memory.live()
        a, b = ck.checkpoint(two_outputs, h, use_reentrant=False)
        a2 = a * 2.0
        del a
        b.sum().backward()
        assert mg.memory.live() > before  # the replay's inputs, for a2's backward
        del a2, b
        assert mg.memory.live() == before
