"""What a checkpointed function computed and dropped is not made again in backward.

``def f(t): (t @ w).exp(); return (t @ w).tanh()`` -- the exp and its matmul die with their tensor
in a run without checkpointing, and no backward can reach them.  The replay ran them anyway (four
ops where two are needed) and held their values beside the others': a peak twice the run without
checkpointing, where the docs promise never worse.  A value the function keeps somewhere (a list it
appends to) may still be backwarded through, and is replayed for it.  Gradients are bitwise those of
the run without checkpointing.  (A policy's kept output of such a value is let go as well: its
array, which the segment holds, is no sign of a tensor that may be backwarded -- its tensors are: the
op's output tensor, one an op read, one that took the node's history by an in-place write.)
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from checkpoint_steps import collector_off, step  # noqa: F401 -- collector_off: a fixture (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]

RUNS = {
    "checkpoint": lambda fn: lambda x: ck.checkpoint(fn, x),
    "nested": lambda fn: lambda x: ck.checkpoint(lambda t: ck.checkpoint(fn, t).sin(), x),
    "save_matmuls": lambda fn: ck.remat(fn, ck.save_matmuls),
}
PLAIN = {"checkpoint": lambda fn: fn, "nested": lambda fn: lambda x: fn(x).sin(), "save_matmuls": lambda fn: fn}


def weight_and_input(n, rows, device, dtype):
    """``w`` (``n x n``) and ``x`` (``rows x n``), both requiring grad, drawn from seed 0."""
    mg.manual_seed(0)
    w = mg.randn(n, n, dtype=dtype, device=device, requires_grad=True)
    return w, mg.randn(rows, n, dtype=dtype, device=device, requires_grad=True)


pytestmark = pytest.mark.usefixtures("collector_off")  # (tests/checkpoint_steps.py)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_value_computed_and_dropped_is_not_replayed(run, device, dtype):
    w, x = weight_and_input(16, 8, device, dtype)

    def f(t):
        (t @ w).exp().sum()  # computed and dropped
        return (t @ w).tanh()

    def without_the_dropped_value(t):
        return (t @ w).tanh()

    plain_peak, expected, _ = step(PLAIN[run](f), x, w)
    peak, grads, replayed = step(RUNS[run](f), x, w)
    # as if the function had not computed it: the same replay (the tanh, and the matmul before it
    # unless kept), the same peak -- no more than without checkpointing, but where a policy keeps
    # an output a run without does not save (save_matmuls: the matmul's)
    assert (peak, replayed) == step(RUNS[run](without_the_dropped_value), x, w)[::2]
    assert peak <= plain_peak or run == "save_matmuls"
    for got, want in zip(grads, expected):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_value_the_function_keeps_is_replayed_for_its_backward(device, dtype):
    mg.manual_seed(0)
    w = mg.randn(16, 16, dtype=dtype, device=device, requires_grad=True)
    kept = []

    def f(t):
        kept.append((t @ w).exp())  # not returned, but alive: a backward may come through it
        return (t @ w).tanh()

    x = mg.randn(8, 16, dtype=dtype, device=device, requires_grad=True)
    found = []
    for run in (f, RUNS["checkpoint"](f)):
        kept.clear()
        x.grad = None
        y = run(x)
        (y.sum() + kept[0].sum()).backward()
        found.append(mg.backend.to_host(x.grad._data).copy())
    assert np.array_equal(found[0], found[1])


class _Output:
    """A result the engine cannot look into (not a tuple, list or dict)."""

    def __init__(self, y):
        self.y = y


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("length", [1, 20])
def test_plan_graph_of_a_function_returning_an_object_predicts_its_peak(length, device, dtype):
    """The profile follows every node's tensor, as the run follows those of the outputs a policy
    keeps: a result it cannot look into (an object) keeps what it holds, and what fn dropped is let
    go -- a short function and a longer one."""
    w, x = weight_and_input(6, 4, device, dtype)

    def f(t):
        (t @ w).exp()  # computed and dropped
        h = t @ w
        for _ in range(length):
            h = h.tanh()
        return _Output(h)

    plan = ck.plan_graph(f, x, budget_bytes=10**6)
    peak, _, _ = step(lambda t: ck.remat(f, plan)(t).y, x, w)
    assert peak == plan.predicted_peak_bytes > 0


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_kept_output_that_lives_on_stays_kept(device, dtype):
    """Outputs a policy keeps that live on after the function returned -- the result written in
    place (the tensor took the add's history), a value stashed in a list -- are kept and backwarded
    through bitwise as without checkpointing, a dropped view of a kept value beside them."""
    w, x = weight_and_input(16, 8, device, dtype)
    stash = []

    def f(t):
        h = (t @ w).tanh()
        stash.append((t @ w).exp())
        (h * 3).T  # a view of a value no one holds: both dropped
        h.add_(1)
        return h

    found = []
    for run in (f, ck.remat(f, ck.save_everything)):
        stash.clear()
        x.grad = w.grad = None
        with mg.memory.track() as ledger:
            y = run(x)
            (y.sum() + stash[0].sum()).backward()
            assert ledger.live("saved") == 0
        found.append([mg.backend.to_host(t.grad._data).copy() for t in (x, w)])
        assert ck.statistics().recomputed_ops == 0 or run is f
    for got, want in zip(*found):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("write", ["mul_ through a view", "setitem"])
def test_a_result_written_through_a_view_of_itself_stays_kept(write, device, dtype):
    """The tensor's history after a write through a view of it is the write-back's last node, whose
    output is no array the tensor holds: a liveness test by the holders of the kept arrays let it
    go ("backward through the graph a second time"); the memory they share keeps it."""
    mg.manual_seed(0)
    x = mg.randn(4, 16, dtype=dtype, device=device, requires_grad=True)

    def fn(t):
        u = t * 1.0
        if write == "setitem":
            u[0] = u[1] * 3
        else:
            u[:, :3].mul_(2.0)
        return u

    found = []
    for run in (fn, ck.remat(fn, ck.save_everything), ck.remat(fn, ck.save_matmuls)):
        x.grad = None
        (run(x) * mg.arange(16, dtype=dtype, device=device)).sum().backward()
        found.append(mg.backend.to_host(x.grad._data).copy())
    for got in found[1:]:
        assert np.array_equal(got, found[0])


KEEPING = {"save_everything": ck.save_everything, "callable": lambda node: True,
           "save_names": ck.save_names("tail", "h")}


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("policy", sorted(KEEPING))
def test_the_kept_last_output_of_a_dropped_branch_is_let_go(policy, device, dtype):
    """The last op of a branch the function dropped (``.sum()``): no op read its output, so no tensor
    of it was noted, and its array -- which the policy keeps -- says nothing of its tensor's life.  It
    is let go with the branch, as the run without checkpointing lets it die: the same peak as a
    function that never computed it (it had stayed kept, with the whole branch, until backward)."""
    w, x = weight_and_input(16, 8, device, dtype)

    def f(t):
        ck.name((t @ w).exp().sum(), "tail")  # computed and dropped
        return ck.name((t @ w).tanh(), "h")

    def without_the_dropped_value(t):
        return ck.name((t @ w).tanh(), "h")

    run = ck.remat(f, KEEPING[policy])
    _, expected, _ = step(f, x, w)
    peak, grads, replayed = step(run, x, w)
    assert (peak, replayed) == step(ck.remat(without_the_dropped_value, KEEPING[policy]), x, w)[::2]
    for got, want in zip(grads, expected):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("adopt", ["mul_", "t_", "setitem", "Tensor(u)"])
@pytest.mark.parametrize("length", [1, 24])
def test_a_kept_output_whose_history_a_stashed_tensor_took_stays_kept(length, adopt, device, dtype):
    """A tensor the function stashed took the history of its last write (``u.mul_(2)``, ``u.t_()``,
    ``u[0] = ...``) or is an alias of ``u`` (PyTorch's legacy ``Tensor(u)``): the node's own output
    tensor died, but the stashed one has it as its history, so it stays,
    and a backward through ``u`` later is bitwise the run's without checkpointing (a branch of one op
    before the write, and a longer one)."""
    w, x = weight_and_input(16, 16, device, dtype)
    stash = []

    def f(t):
        u = (t @ w).exp()
        for _ in range(length - 1):
            u = u * 0.5
        if adopt == "mul_":
            u.mul_(2.0)
        elif adopt == "t_":
            u.t_()
        elif adopt == "Tensor(u)":
            u = mg.Tensor(u)
        else:
            u[0] = u[1] * 3.0
        stash.append(u)
        return (t @ w).tanh()

    found = []
    for run in (f, ck.remat(f, ck.save_everything), ck.remat(f, lambda node: True)):
        stash.clear()
        x.grad = w.grad = None
        y = run(x)
        (y.sum() + (stash[0] * mg.arange(16, dtype=dtype, device=device)).sum()).backward()
        found.append([mg.backend.to_host(t.grad._data).copy() for t in (x, w)])
    for got in found[1:]:
        for g, want in zip(got, found[0]):
            assert np.array_equal(g, want)


NESTED_KEEPING = {"save_everything": ck.save_everything, "save_matmuls": ck.save_matmuls,
                  "offloaded": ck.offload_to_host(ck.save_everything)}
AROUND = {"checkpoint": lambda fn: lambda x: ck.checkpoint(fn, x),
          "save_everything": lambda fn: ck.remat(fn, ck.save_everything)}


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("around", sorted(AROUND))
@pytest.mark.parametrize("policy", sorted(NESTED_KEEPING))
def test_what_a_nested_remat_kept_of_a_dropped_value_is_let_go_in_the_ledger(policy, around, device, dtype):
    """A remat nested in the function keeps what its policy selects from its own end on, and the
    ledger counts it from there; the function around it then drops its result, and the outputs go
    with the nested region's nodes -- out of the ledger too (it went on counting them until
    backward: a peak of 2,048 B where the function without the dropped value holds 1,024)."""
    w, x = weight_and_input(16, 8, device, dtype)

    def f(t):
        ck.remat(lambda s: (s @ w).exp(), NESTED_KEEPING[policy])(t)  # computed and dropped
        return (t @ w).tanh()

    def without_the_dropped_value(t):
        return (t @ w).tanh()

    _, expected, _ = step(f, x, w)
    peak, grads, replayed = step(AROUND[around](f), x, w)
    assert (peak, replayed) == step(AROUND[around](without_the_dropped_value), x, w)[::2]
    for got, want in zip(grads, expected):
        assert np.array_equal(got, want)


FROZEN_WRITES = {
    "copy_": lambda buf, h: buf.copy_(h),
    "mul_": lambda buf, h: buf.add_(1.0).mul_(h),
    "setitem": lambda buf, h: buf.__setitem__(0, h[1]),
    "t_": lambda buf, h: buf.copy_(h).t_(),
}


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("policy", sorted(KEEPING))
@pytest.mark.parametrize("write", sorted(FROZEN_WRITES))
def test_a_buffer_older_than_gc_freeze_that_took_a_kept_history_keeps_it(write, policy, device, dtype):
    """A buffer made before ``gc.freeze()`` (a server's start-up objects; this suite's own), written
    inside the function, takes the history of a kept output whose own tensor died: a look for it
    among the garbage collector's objects, which hide frozen ones, let the kept output go as a
    dropped branch's -- a backward through the buffer then raised "backward through the graph a
    second time".  The write tells the segment (in-place ops and ``x.t_()``), so no look is needed."""
    w, x = weight_and_input(16, 16, device, dtype)
    found = []
    for run in ("plain", "remat"):
        buf = mg.zeros(16, 16, dtype=dtype, device=device)
        gc.freeze()  # (undone by nothing: the buffer lives in the permanent generation from here on)

        def f(t, buf=buf):
            FROZEN_WRITES[write](buf, ck.name((t @ w).exp(), "tail"))
            return ck.name((t @ w).tanh(), "h")

        x.grad = w.grad = None
        y = (f if run == "plain" else ck.remat(f, KEEPING[policy]))(x)
        (y.sum() + (buf * mg.arange(256, dtype=dtype, device=device).reshape(16, 16)).sum()).backward()
        found.append([mg.backend.to_host(t.grad._data).copy() for t in (x, w)])
    for got, want in zip(found[1], found[0]):
        assert np.array_equal(got, want)
