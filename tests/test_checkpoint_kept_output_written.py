"""A value a ``remat`` policy keeps, written in place later in the same forward pass.

``h = x @ w`` is kept by ``save_matmuls``; ``(h + 1).tanh()`` reads it (the add keeps
nothing of it, the tanh saves its own output); then the function writes into ``h``'s
memory -- through ``.data``, ``detach()``, a view, or under ``no_grad`` -- and goes on.
Without checkpointing nothing the backward reads changed, so the gradient is the plain
one (torch 2.13's ``checkpoint`` with a selective policy re-runs the function and gives
it too).  The replay took the kept ``h`` as it was at the end of the forward pass -- the
written values -- and recomputed the tanh from them: a silently wrong gradient with
``.data``, whose writes the version counter does not see.  A kept output whose memory is
written while the function runs is now recomputed, as the ops before the write saw it.

``plan_graph`` models that too: such an output (and a view of a custom function's output,
whose replay makes a new buffer) is never one a plan keeps, and the measured peak is the
predicted one.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_custom_functions import NoisyScale, SinSavingCos  # tests/checkpoint_custom_functions.py

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F

WRITES = {
    "data": lambda h: h.data.zero_(),
    "detach": lambda h: h.detach()[1:].mul_(3.0),
    "view_no_grad": lambda h: _under_no_grad(lambda: h[:, 1:].fill_(0.5)),
    "data_view": lambda h: h.data.t()[0].add_(1.0),
}


def _under_no_grad(write):
    with mg.no_grad():
        write()


def program(write):
    def fn(x, w):
        h = ck.name(x @ w, "h")
        s = F.dropout((h + 1.0).tanh(), 0.25)  # reads h before the write, keeps nothing of it
        t = (h.T + 0.5).exp()  # a view of h, read before the write (nothing saves it)
        write(h)
        return s * 2 + t.T + h * 0.5  # h read after the write: its new values, as kept
    return fn


POLICIES = {
    "save_matmuls": ck.save_matmuls,
    "save_everything": ck.save_everything,
    "save_names": ck.save_names("h"),
    "callable": lambda node: node.op.name in ("MatMul", "Transpose"),
    "offload": ck.offload_to_host(ck.save_everything),
}


def gradients(fn, device, dtype, loss=lambda y: (y * y).sum()):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    mg.manual_seed(1)
    y = fn(x, w)
    loss(y).backward()
    return [y.detach().cpu().numpy(), x.grad.cpu().numpy(), w.grad.cpu().numpy(), mg.rand(2).numpy()]


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                          ("strict-f32", mg.float32)])
def test_a_kept_output_written_in_the_forward_pass_gives_the_plain_gradients(write, policy, device, dtype):
    fn = program(WRITES[write])
    expected = gradients(fn, device, dtype)
    with mg.memory.track() as ledger:
        got = gradients(ck.remat(fn, POLICIES[policy]), device, dtype)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    assert ledger.live("saved") == 0 and ledger.live("host") == 0


@pytest.mark.parametrize("write", sorted(WRITES))
def test_nested_in_a_checkpoint_and_under_grad_transforms(write):
    fn = program(WRITES[write])

    def loss(wrap):
        return lambda x, w: (wrap(x, w) ** 2).sum()

    inner = ck.remat(fn, ck.save_matmuls)
    x = mg.randn(3, 4, dtype=mg.float64)
    w = mg.randn(4, 4, dtype=mg.float64)
    for wrapped in (lambda x, w: ck.checkpoint(inner, x, w), inner):
        for argnums in (0, 1):
            mg.manual_seed(1)
            expected = mg.func.grad(loss(fn), argnums=argnums)(x, w)
            mg.manual_seed(1)
            got = mg.func.grad(loss(wrapped), argnums=argnums)(x, w)
            np.testing.assert_array_equal(got.numpy(), expected.numpy())


def matmul_written_then_read(x, w):
    """``x @ w``, which a plan keeps where it can, written through ``detach()`` (its replay must
    recompute it) and read after the write as a kept value: one buffer, counted once."""
    h = x @ w
    noisy = NoisyScale.apply(h)
    s = h + 1.0
    h.detach()[0].mul_(3.0)
    return h.sum() + noisy.sum() + (s + noisy).sum()


def views_of_a_custom_function(x, w):
    """Views of a custom function's output, which its replay makes again in a new buffer:
    a kept view would hold the forward pass's buffer beside it."""
    v = NoisyScale.apply(x)
    t = v.T.T[:, :]
    return v.sum() + (t @ w).sum()


def a_constant_read_written_and_read_again(x, w):
    """A constant an add read (kept, so copied before the write), read again after it."""
    c = mg.ones(3, 4, dtype=x.dtype)
    y = (x + c).tanh()
    c.mul_(2.0)
    return (y + c).sum() + (x @ w).sin().sum()


def a_recorded_write_into_a_row(x, w):
    """``h[1].mul_(2)`` on the tape: ``h`` is then the write's result, whose version moved when
    the write was done, so a replay recomputes it whatever a policy keeps -- and a plan keeping
    it (a custom function reads it: the replay wants it) held a value the ledger never saw."""
    h = x @ w
    h[1].mul_(2.0)
    return h.sum() + SinSavingCos.apply(h).sum() * 2


@pytest.mark.parametrize("fn", [program(WRITES[w]) for w in sorted(WRITES)]
                         + [matmul_written_then_read, views_of_a_custom_function,
                            a_constant_read_written_and_read_again, a_recorded_write_into_a_row])
@pytest.mark.parametrize("budget", [0.0, 0.5, 1.0])
def test_a_graph_plan_is_measured_at_its_prediction_when_the_function_writes(fn, budget):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    w = mg.randn(4, 4, dtype=mg.float64, requires_grad=True)
    try:
        smallest = ck.plan_graph(fn, x, w, budget_bytes=0).predicted_peak_bytes
    except ck.InfeasibleBudgetError as e:
        smallest = e.smallest_feasible_bytes
    largest = ck.plan_graph(fn, x, w, budget_bytes=2**30).predicted_peak_bytes
    plan = ck.plan_graph(fn, x, w, budget_bytes=smallest + int(budget * (largest - smallest)))
    expected = gradients(fn, "cpu", mg.float64, loss=mg.sum)
    with mg.memory.track() as ledger:  # (the plan's prediction is for a backward from fn's result)
        got = gradients(ck.remat(fn, plan), "cpu", mg.float64, loss=mg.sum)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    assert ledger.peak("saved") == plan.predicted_peak_bytes <= plan.budget_bytes
