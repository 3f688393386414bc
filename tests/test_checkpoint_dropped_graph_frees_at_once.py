"""A checkpointed graph nothing can run backward through any more lets its kept values go at once.

A segment's nodes hold their segment, and the segment held its nodes: every checkpointed graph
was a reference cycle.  Dropped without its backward -- an evaluation loop that forgot
``no_grad``, a loss computed on a branch not taken, a backward that raised, a graph retained and
then dropped -- it held its kept values (inputs, a policy's kept outputs, the ledger's holds of
them) and its write guard until the garbage collector ran, where PyTorch frees the graph the
moment its last tensor dies.  Now the tree holds its nodes weakly once its forward pass is over:
the graph dies with the last tensor that reaches it.  Every test runs with the collector off.
"""

from __future__ import annotations

import weakref

import numpy as np
import pytest
from checkpoint_steps import gc_paused as collector_off  # (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.checkpoint import stale_writes


def block(h):
    return (h * 2.0).tanh() * 3.0


def make_graphs(w):
    """Ways to build a checkpointed graph from ``h``, by name."""
    layers = [lambda a: (a @ w).tanh(), lambda a: a.sin() * 1.5, lambda a: (a @ w).exp(), lambda a: a * a]
    return {
        "checkpoint": lambda h: ck.checkpoint(block, h, use_reentrant=False),
        "reentrant": lambda h: ck.checkpoint(block, h, use_reentrant=True),
        "nested": lambda h: ck.checkpoint(lambda a: ck.checkpoint(block, a) * 1.5 + a, h),
        "remat-save_matmuls": lambda h: ck.remat(lambda a: ((a @ w).tanh() @ w).sin(), policy=ck.save_matmuls)(h),
        "checkpoint_sequential": lambda h: ck.checkpoint_sequential(layers, 2, h),
        "two-outputs": lambda h: sum(ck.checkpoint(lambda a: (a.sin() * 2.0, a.cos() * 3.0), h)),
    }


GRAPHS = list(make_graphs(None))
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64)]


def inputs(device, dtype):
    mg.manual_seed(0)
    x = mg.randn(5, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    return x, w


def segments_of(y):
    """Weak references to the segments ``y``'s graph reaches."""
    found, stack, seen = {}, [y._node], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if n.segment is not None:
            found[id(n.segment)] = weakref.ref(n.segment)
        stack.extend(e for e in n.inputs if type(e) is type(n))
        stack.extend(e for e in (n.replay or ()) if type(e) is type(n))
    assert found, "the graph has no checkpointed segment"
    return list(found.values())


def assert_let_go(refs, live_before):
    assert all(r() is None for r in refs), "a segment of the dropped graph is still alive"
    assert mg.memory.live() == live_before, "the ledger still counts what the dropped graph kept"
    assert not stale_writes._guard_installed[0], "the stale-write guard is still installed"


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_graph_dropped_without_backward_lets_go_at_once(graph, device, dtype):
    with collector_off(), mg.memory.track():
        x, w = inputs(device, dtype)
        h = x * 1.0
        before = mg.memory.live()
        y = make_graphs(w)[graph](h)
        refs = segments_of(y)
        assert mg.memory.live() > before
        assert stale_writes._guard_installed[0]
        del y
        assert_let_go(refs, before)


def test_kept_input_array_dies_with_the_graph():
    with collector_off():
        x, _ = inputs("cpu", mg.float64)
        h = x * 1.0
        memory = weakref.ref(h._data)
        y = ck.checkpoint(block, h)
        del h
        assert memory() is not None  # the segment keeps it to replay from
        del y
        assert memory() is None


def _backward_raises(h, y, error):
    """``y``'s backward, which must raise ``error`` (try/except, not pytest.raises: a kept
    traceback would hold ``y`` past the drop)."""
    try:
        y.sum().backward()
    except error:
        pass
    else:
        raise AssertionError(f"the backward did not raise {error.__name__}")


def _a_hook_raises(h, y):
    def refuse(g):
        raise ValueError("a hook refused the gradient")

    y.register_hook(refuse)
    _backward_raises(h, y, ValueError)


def _the_replay_refuses(h, y):
    """A kept input written in place after the forward pass: the replay raises."""
    with mg.no_grad():
        h.add_(1.0)
    _backward_raises(h, y, ck.CheckpointError)


def _retained(h, y):
    y.sum().backward(retain_graph=True)


#: What runs before the graph is dropped, and the graphs it is tried on (a replay is refused only
#: where a kept input is replayed from)
BEFORE_THE_DROP = [(_a_hook_raises, g) for g in GRAPHS] + [(_retained, g) for g in GRAPHS] + [
    (_the_replay_refuses, g) for g in ("checkpoint", "nested", "remat-save_matmuls")]


@pytest.mark.parametrize("before_the_drop, graph", BEFORE_THE_DROP,
                         ids=[f"{f.__name__[1:]}-{g}" for f, g in BEFORE_THE_DROP])
def test_graph_dropped_after_a_backward_lets_go(before_the_drop, graph):
    """A backward that raised, a replay refused, or a retained graph: dropped, all of it goes."""
    with collector_off(), mg.memory.track():
        x, w = inputs("cpu", mg.float64)
        h = x * 1.0
        before = mg.memory.live()
        y = make_graphs(w)[graph](h)
        refs = segments_of(y)
        before_the_drop(h, y)
        del y
        assert_let_go(refs, before)


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("device,dtype", DEVICES)
def test_graph_a_live_tensor_reaches_is_kept(graph, device, dtype):
    """``y`` dropped, ``z = y * 2`` alive: its backward still replays the segment, bitwise."""
    with collector_off():
        x, w = inputs(device, dtype)
        y = make_graphs(w)[graph](x * 1.0)
        z = y * 2.0
        refs = segments_of(y)
        del y
        assert all(r() is not None for r in refs)
        z.sum().backward()
        got = [t.grad.cpu().numpy() for t in (x, w) if t.grad is not None]
        # the same step, the graph kept by its own output all along
        x2, w2 = inputs(device, dtype)
        (make_graphs(w2)[graph](x2 * 1.0) * 2.0).sum().backward()
        expected = [t.grad.cpu().numpy() for t in (x2, w2) if t.grad is not None]
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)
        del z
        assert all(r() is None for r in refs)


def test_one_of_two_outputs_dropped_the_other_backwards_later():
    with collector_off(), mg.memory.track():
        x, _ = inputs("cpu", mg.float64)
        h = x * 1.0
        before = mg.memory.live()
        a, b = ck.checkpoint(lambda t: (t.sin() * 2.0, t.cos() * 3.0), h)
        refs = segments_of(a)
        del b
        assert all(r() is not None for r in refs)
        a.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), (np.cos(x.detach().numpy()) * 2.0))
        del a
        assert_let_go(refs, before)


def test_forward_only_steps_hold_one_step():
    """An evaluation loop that forgot ``no_grad``: each step's graph goes as the next replaces it."""
    with collector_off(), mg.memory.track():
        x, w = inputs("cpu", mg.float32)
        net = make_graphs(w)["checkpoint_sequential"]
        loss = net(x * 1.0).sum()
        one_step = mg.memory.live()
        for _ in range(20):
            loss = net(x * 1.0).sum()
        assert mg.memory.live() == one_step
        del loss
        assert mg.memory.live() == 0
