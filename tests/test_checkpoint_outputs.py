"""A checkpointed function with several outputs, backwarded through one output and later through another.

Without checkpointing, a backward through ``a`` frees what ``a``'s nodes saved and leaves ``b``'s graph
alone, so a second backward through ``b`` works (PyTorch's ``use_reentrant=False`` checkpoint too).  A
checkpointed segment must behave the same: what its replay starts from stays until every returned
tensor still alive has had its backward, and a backward that fails without checkpointing (through a
node the first one freed) fails with it.  Gradients are compared bitwise with the run without checkpoint.
"""

from __future__ import annotations

import collections
import dataclasses
import gc
from typing import Any

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in device

FREED_MSG = "backward through the graph a second time"


def _sin_cos(t):
    return t.sin(), t.cos()


def _no_checkpoint(fn, *args):
    return fn(*args)


def _checkpointed(fn, *args):
    return ck.checkpoint(fn, *args)


def _remat_everything(fn, *args):
    return ck.remat(fn, policy=ck.save_everything)(*args)


def _nested(fn, *args):
    # an outer segment around the inner one: both return the two outputs
    return ck.checkpoint(lambda *a: ck.checkpoint(fn, *a), *args)


RUNS = [_checkpointed, _remat_everything, _nested]


def _x(dtype, device="cpu"):
    return mg.tensor([0.1, 0.2, -0.7], dtype=dtype, requires_grad=True, device=device)


def _grads_one_by_one(run, fn, dtype, order=(0, 1), use_grad=False, device="cpu"):
    x = _x(dtype, device)
    outs = run(fn, x)
    found = []
    for k in order:
        if use_grad:
            found.append(mg.autograd.grad(outs[k].sum(), [x])[0].cpu().numpy())
        else:
            outs[k].sum().backward()
            found.append(x.grad.cpu().numpy().copy())
    return found


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("use_grad", [False, True])
def test_backward_through_one_output_then_another(dtype, run, order, use_grad):
    expected = _grads_one_by_one(_no_checkpoint, _sin_cos, dtype, order, use_grad)
    got = _grads_one_by_one(run, _sin_cos, dtype, order, use_grad)
    for e, g in zip(expected, got):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("run", RUNS)
def test_one_output_then_another_on_the_strict_device(run):
    # (the strict stand-in device refuses implicit host access and host/device mixing)
    expected = _grads_one_by_one(_no_checkpoint, _sin_cos, "float32", device="strict")
    got = _grads_one_by_one(run, _sin_cos, "float32", device="strict")
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(got[0], _grads_one_by_one(run, _sin_cos, "float32")[0])


def test_the_reported_case():
    x = mg.tensor([0.1, 0.2], dtype="float64", requires_grad=True)
    a, b = ck.checkpoint(lambda t: (t.sin(), t.cos()), x)
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.1, 0.2]) - np.sin([0.1, 0.2]), rtol=1e-15)


def _dropout_branches(t):
    # (no node shared by the two: a second backward through a shared one fails without checkpoint)
    a = (mg.nn.functional.dropout(t * 3.0, p=0.5).tanh() * t).sum()
    return a, mg.nn.functional.dropout(t.exp(), p=0.3).sum()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("run", RUNS)
def test_dropout_inside_is_bitwise_the_run_without_checkpoint(dtype, run):
    def grads(run_with):
        mg.manual_seed(7)
        x = mg.tensor(np.linspace(-1, 1, 64), dtype=dtype, requires_grad=True)
        a, b = run_with(_dropout_branches, x)
        b.backward()
        first = x.grad.numpy().copy()
        a.backward()
        return first, x.grad.numpy().copy(), mg.rand(3).numpy()  # the generator's position too

    for e, g in zip(grads(_no_checkpoint), grads(run)):
        np.testing.assert_array_equal(g, e)


def _shared(t):
    s = t.sin()
    return s * 2.0, s * 3.0


def _output_and_its_consumer(t):
    s = t.sin()
    return s, s.exp()


@pytest.mark.parametrize("fn", [_shared, _output_and_its_consumer])
@pytest.mark.parametrize("run", [_no_checkpoint, *RUNS])
def test_outputs_sharing_a_node_fail_the_second_time_as_without_checkpoint(fn, run):
    # the first backward frees the shared node's saved values (sin saves its input): the
    # second backward reaches it again -- an error without checkpointing, so with it too
    x = _x("float64")
    a, b = run(fn, x)
    b.sum().backward()
    with pytest.raises(RuntimeError, match=FREED_MSG):
        a.sum().backward()


@pytest.mark.parametrize("fn", [_shared, _output_and_its_consumer])
@pytest.mark.parametrize("run", RUNS)
def test_outputs_sharing_a_node_with_retain_graph(fn, run):
    def grads(run_with):
        x = _x("float64")
        a, b = run_with(fn, x)
        b.sum().backward(retain_graph=True)
        first = x.grad.numpy().copy()
        a.sum().backward()
        return first, x.grad.numpy()

    for e, g in zip(grads(_no_checkpoint), grads(run)):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("run", RUNS)
def test_the_same_output_twice_fails_as_without_checkpoint(run):
    x = _x("float64")
    a, b = run(_sin_cos, x)
    a.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        a.sum().backward()
    b.sum().backward()  # the other output's graph is untouched
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.numpy()) - np.sin(x.numpy()), rtol=1e-15)


@pytest.mark.parametrize("run", RUNS)
def test_second_derivatives_one_output_at_a_time(run):
    def grads(run_with):
        x = _x("float64")
        a, b = run_with(lambda t: ((t * t).sin(), t.exp() * t), x)
        (ga,) = mg.autograd.grad(a.sum(), [x], create_graph=True)
        (gb,) = mg.autograd.grad(b.sum(), [x], create_graph=True)
        (hess_diag,) = mg.autograd.grad((ga + gb).sum(), [x])
        return ga.numpy(), gb.numpy(), hess_diag.numpy()

    for e, g in zip(grads(_no_checkpoint), grads(run)):
        np.testing.assert_array_equal(g, e)


def test_nested_segments_each_with_two_outputs():
    def inner(t):
        return t.sin(), t.cos()

    def outer_fn(t):
        p, q = ck.checkpoint(inner, t)
        return (p * t).tanh(), (q + t).exp()

    def grads(run_outer):
        x = _x("float64")
        a, b = run_outer(outer_fn, x)
        a.sum().backward()
        first = x.grad.numpy().copy()
        b.sum().backward()
        return first, x.grad.numpy()

    def without(fn, x):
        p, q = inner(x)
        return (p * x).tanh(), (q + x).exp()

    for e, g in zip(grads(lambda fn, x: without(fn, x)), grads(_checkpointed)):
        np.testing.assert_array_equal(g, e)


def test_jacrev_of_a_checkpointed_function_of_two_outputs():
    f_plain = lambda t: (t.sin() * t, t.cos())  # noqa: E731
    x = mg.tensor([0.3, -0.4], dtype="float64")
    expected = mg.func.jacrev(f_plain)(x)
    got = mg.func.jacrev(lambda t: ck.checkpoint(f_plain, t))(x)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def _weights(requires_grad=True):
    return mg.tensor(np.linspace(-1, 1, 256).reshape(16, 16), dtype="float64", requires_grad=requires_grad)


def _layers(t, w):
    # an input that is not a parameter (the segment keeps it, and the ledger counts it), no node shared
    return (t @ w).tanh().sin(), (t @ w).cos()


@pytest.mark.parametrize("together", [False, True])
def test_the_segment_is_freed_after_the_last_output_and_the_ledger_is_back_to_zero(together):
    x, w = _weights(requires_grad=False), _weights()
    gc.collect()
    active = ck.statistics().active_checkpoints
    with mg.memory.track() as ledger:
        a, b = ck.checkpoint(_layers, x, w)
        if together:  # one backward through both: freed at the segment's first node, as before
            (a.sum() + b.sum()).backward()
        else:
            a.sum().backward()
            assert ck.statistics().active_checkpoints == active + 1  # b's backward is still to come
            b.sum().backward()
        assert ledger.live("saved") == 0
    assert ck.statistics().active_checkpoints == active


def test_an_output_dropped_without_backward_lets_the_segment_go():
    x, w = _weights(requires_grad=False), _weights()
    active = ck.statistics().active_checkpoints
    with mg.memory.track() as ledger:
        a, b = ck.checkpoint(_layers, x, w)
        a.sum().backward()
        assert ledger.live("saved") > 0  # held for b's backward
        del b  # ... which will never come
        assert ledger.live("saved") == 0
    assert ck.statistics().active_checkpoints == active


def test_an_output_dropped_before_the_first_backward_is_not_waited_for():
    x, w = _weights(requires_grad=False), _weights()
    with mg.memory.track() as ledger:
        a, b = ck.checkpoint(_layers, x, w)
        del b
        a.sum().backward()
        assert ledger.live("saved") == 0


def test_an_output_not_returned_is_not_waited_for():
    # (a value the function computes and drops has no backward to come)
    x, w = _weights(requires_grad=False), _weights()
    with mg.memory.track() as ledger:
        a = ck.checkpoint(lambda t, v: _layers(t, v)[0], x, w)
        a.sum().backward()
        assert ledger.live("saved") == 0


def test_a_long_chain_nested_in_one_block_asks_in_constant_time():
    # Each inner block's end of backward asks whether a returned tensor still waits: those done with
    # for good come off the list as it goes (a scan of every block's result made 4,000 blocks take
    # 5.3 s instead of 0.7 s).  What is left at the end shows it: nothing.
    from minigrad_ckpt.checkpoint.planner import Block, Plan

    n = 300
    inner = tuple(Block(i, i + 1, True) for i in range(n))
    x = mg.tensor([0.1, 0.2], dtype="float64", requires_grad=True)
    y = ck.run_plan([mg.tanh] * n, Plan((Block(0, n, True, inner),), policy="nested"), x)
    root = y._node.segment._root_segment
    assert len(root._returned) == n + 1  # each inner block's result, and the outer one's
    y.sum().backward()
    assert root._returned == []
    expected = mg.tensor([0.1, 0.2], dtype="float64", requires_grad=True)
    z = expected
    for _ in range(n):
        z = z.tanh()
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), expected.grad.numpy())


def _sharing_a_node_that_saves_nothing(t):
    a = (t + 1.0).reshape(3)  # two nodes that save nothing, shared by both outputs
    return a - 1.0, a


def _sharing_behind_a_saving_node(t):
    a = t.sin() + 1.0  # sin saves its input: a second backward reaching it fails, with or without checkpoint
    return a - 1.0, a


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_outputs_sharing_nodes_that_save_nothing_backward_one_at_a_time(run, order, device):
    """A backward frees nothing of a node that saved nothing, so without checkpointing a second
    backward through it runs (PyTorch's too, with or without its checkpoint); it did not inside a
    segment, whose release marked every node freed. Bitwise the run without checkpoint, the tree
    freed after the last output and the ledger back to zero."""
    expected = _grads_one_by_one(_no_checkpoint, _sharing_a_node_that_saves_nothing, "float64", order, device=device)
    gc.collect()
    active = ck.statistics().active_checkpoints
    with mg.memory.track() as ledger:
        found = _grads_one_by_one(run, _sharing_a_node_that_saves_nothing, "float64", order, device=device)
        assert ledger.live("saved") == 0
    for e, g in zip(expected, found):
        np.testing.assert_array_equal(g, e)
    gc.collect()
    assert ck.statistics().active_checkpoints == active
    for runner in (_no_checkpoint, run):  # the same output twice: runs, as the path saves nothing
        x = _x("float64", device)
        a, _ = runner(_sharing_a_node_that_saves_nothing, x)
        a.sum().backward()
        a.sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("run", [_no_checkpoint, *RUNS])
def test_outputs_sharing_nodes_behind_a_saving_node_fail_the_second_time(run):
    x = _x("float64")
    a, b = run(_sharing_behind_a_saving_node, x)
    a.sum().backward()
    with pytest.raises(RuntimeError, match=FREED_MSG):
        b.sum().backward()


def _one_saves_nothing_at_the_end(t):
    return t.sin(), t.cos() + 1.0


def _the_other_saves_nothing_at_the_end(t):
    return t.sin() + 1.0, t.cos()


@pytest.mark.parametrize("run", RUNS)
def test_an_output_ending_in_a_node_that_saves_nothing_is_waited_for_until_its_own_backward(run):
    """A pass through one output does not reach the other's last node (``+ 1.0``, which saves
    nothing): the tree still waits for that output's backward -- a node a pass did not reach has
    not had its backward, whatever it saved -- also after a first backward that retained the graph."""
    for fn, retain in ((_one_saves_nothing_at_the_end, False), (_the_other_saves_nothing_at_the_end, True)):
        found = []
        for runner in (_no_checkpoint, run):
            x = _x("float64")
            a, b = runner(fn, x)
            a.sum().backward(retain_graph=retain)
            b.sum().backward()
            if retain:
                a.sum().backward()
            found.append(x.grad.numpy())
        np.testing.assert_array_equal(found[1], found[0])


@dataclasses.dataclass
class _Pair:
    first: Any
    second: Any


class _Holder:
    def __init__(self, first, second):
        self.first, self.second = first, second
        self.me = self  # (a cycle: each object is visited once)


_CONTAINERS = {
    "dataclass": lambda a, b: _Pair(a, b),
    "object": lambda a, b: _Holder(a, b),
    "object in a dict in a list": lambda a, b: [{"out": _Holder(a, (b,))}],
    "namedtuple": lambda a, b: collections.namedtuple("Out", "first second")(a, b),
    "ordered dict": lambda a, b: collections.OrderedDict(first=a, second=b),
}


def _unpack(out):
    if isinstance(out, list):
        out = out[0]["out"]
        return out.first, out.second[0]
    return (out["first"], out["second"]) if isinstance(out, dict) else (out.first, out.second)


@pytest.mark.parametrize("container", sorted(_CONTAINERS))
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize(("device", "dtype"), [("cpu", "float32"), ("cpu", "float64"), ("strict", "float32")])
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_outputs_returned_in_a_dataclass_or_an_object_are_waited_for(container, run, device, dtype, order):
    """PyTorch's checkpoint returns whatever the function returns, and a backward through each
    tensor in it works one at a time (``use_reentrant=False``): a segment waits for the tensors a
    dataclass or a plain object holds as for those of a tuple -- it waited only inside tuples,
    lists and dicts, so the second backward here was 'backward through the graph a second time'."""
    def fn(t):
        return _CONTAINERS[container](t.sin() * 2, t.cos().exp())

    found = []
    for runner in (_no_checkpoint, run):
        x = _x(dtype, device)
        outs = _unpack(runner(fn, x))
        grads = []
        for k in order:
            outs[k].sum().backward()
            grads.append(x.grad.cpu().numpy().copy())
        found.append(grads)
    for e, g in zip(*found):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(g, e)
