"""``statistics().memory_saved_bytes`` while the ledger tracks: what it holds less at the end of the
forward pass, when the checkpointed function computes values it then drops.

A value the function computed and dropped (``t.exp()`` alone on a line, a branch nothing returned
depends on) dies with its tensor in a run without checkpointing, and what its node saved with it.
Not saving it in a checkpointed run saves nothing: the statistics counted it as dropped (and a
dropped result as one the tape holds), so a segment that costs memory read as one that saves it.
A value the function keeps somewhere (a list it appends to) lives on in both runs, and counts.
On the strict stand-in device too, whose arrays take weak references as CuPy's do (the counts
tell one buffer from another by them: without, a buffer two ops save counted twice).
"""

from __future__ import annotations

import random
import warnings

import pytest
from checkpoint_steps import collector_off  # noqa: F401 -- a fixture (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


pytestmark = pytest.mark.usefixtures("collector_off")  # (tests/checkpoint_steps.py)


def _saved_at_the_end_of_the_forward_pass(fn, x, *args):
    ck.reset_statistics()
    with warnings.catch_warnings(record=True) as caught, mg.memory.track() as ledger:
        warnings.simplefilter("always", ck.CheckpointCostWarning)
        y = fn(x, *args)
        (y * 1.0).sum()  # (an op after the segment that keeps nothing)
        held = ledger.live("saved")
    return held, ck.statistics().memory_saved_bytes, [str(w.message) for w in caught]


def _step(kind, a, b, w):
    if kind == "tanh":
        return a.tanh()
    if kind == "mul":
        return a * b
    if kind == "add":
        return a + b
    if kind == "matmul":
        return a @ w
    if kind == "exp":
        return (a * 0.1).exp()
    if kind == "t":
        return a.t()
    if kind == "sum":
        return a.sum(0, keepdim=True).expand(a.shape) * 1.0
    return a.sin() + 2.0


def _random_function(seed):
    """Tanh, products, matmuls, views and sums over random earlier values: most functions leave
    some of their values unused."""
    rng = random.Random(seed)
    steps = [(rng.choice(["tanh", "mul", "add", "matmul", "exp", "t", "sum", "sin"]), rng.random(), rng.random())
             for _ in range(rng.randint(2, 7))]

    def fn(x, w):
        values = [x]
        for kind, p, q in steps:
            values.append(_step(kind, values[int(p * len(values))], values[int(q * len(values))], w))
        return values[-1] * values[-2]

    return fn


RUNS = {
    "checkpoint": lambda fn: lambda x, w: ck.checkpoint(fn, x, w),
    "nested": lambda fn: lambda x, w: ck.checkpoint(lambda a, b: ck.checkpoint(fn, a, b) * 1.0, x, w),
    "save_matmuls": lambda fn: ck.remat(fn, ck.save_matmuls),
    "offload_to_host": lambda fn: ck.remat(fn, ck.offload_to_host(ck.save_matmuls)),
    # (keeping a view of the input, held by the tape anyway, costs nothing: it had counted as kept)
    "save_everything": lambda fn: ck.remat(fn, ck.save_everything),
}


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_value_computed_and_dropped_saves_nothing(device, dtype):
    def f(t):
        t.exp()  # computed and dropped: its saved output dies with it without checkpointing
        return t.tanh()

    x = mg.randn(64, dtype=dtype, device=device, requires_grad=True)
    h = x * 2.0  # an intermediate value: the segment keeps it, the run without does not
    plain, _, _ = _saved_at_the_end_of_the_forward_pass(f, h)
    held, saved, warned = _saved_at_the_end_of_the_forward_pass(lambda t: ck.checkpoint(f, t), h)
    assert (plain, held) == (h.nbytes,) * 2  # tanh's output, or h: the segment saves nothing
    assert saved == plain - held == 0
    assert warned and "f costs memory" in warned[0]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_value_the_function_keeps_somewhere_counts(device, dtype):
    stash = []

    def f(t):
        stash.append(t.exp())  # kept: alive in both runs, and saved by the run without
        return t.tanh()

    h = mg.randn(64, dtype=dtype, device=device, requires_grad=True) * 2.0
    plain, _, _ = _saved_at_the_end_of_the_forward_pass(f, h)
    held, saved, _ = _saved_at_the_end_of_the_forward_pass(lambda t: ck.checkpoint(f, t), h)
    assert saved == plain - held == h.nbytes


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("device, dtype", SEAMS)
def test_the_statistics_are_the_ledgers_difference_for_random_functions(run, device, dtype):
    for seed in range(60):
        fn = _random_function(seed)
        mg.manual_seed(seed)
        w = mg.randn(6, 6, dtype=dtype, device=device, requires_grad=True)
        x = mg.randn(6, 6, dtype=dtype, device=device, requires_grad=True)
        start = [lambda t: t, lambda t: t.tanh(), lambda t: t * 2.0][seed % 3]  # a leaf, a saved value, neither
        plain, _, _ = _saved_at_the_end_of_the_forward_pass(lambda t, v, f=fn, s=start: f(s(t), v), x, w)
        wrapped = RUNS[run](fn)
        held, saved, _ = _saved_at_the_end_of_the_forward_pass(lambda t, v, f=wrapped, s=start: f(s(t), v), x, w)
        assert saved == plain - held, seed


@pytest.mark.parametrize("policy", ["save_everything", "save_matmuls"])
@pytest.mark.parametrize("device, dtype", SEAMS)
def test_what_a_nested_remat_kept_of_a_dropped_value_counts_for_nothing(device, dtype, policy):
    """A remat nested in the function counts what its policy keeps when its own forward pass ends;
    the function around it then drops its result (and a value kept beside it), and what it kept
    goes -- from the statistics too, whose saving is again the ledger's difference (they still
    counted it as kept, as the ledger did)."""
    mg.manual_seed(0)
    w = mg.randn(8, 8, dtype=dtype, device=device, requires_grad=True)
    keep = {"save_everything": ck.save_everything, "save_matmuls": ck.save_matmuls}[policy]

    def g(s):
        return ((s @ w).exp(), (s @ w).sin() * s)[1]

    def f(t, nest=lambda fn: ck.remat(fn, keep)):
        nest(g)(t)  # computed and dropped
        return t.tanh()

    h = mg.randn(8, 8, dtype=dtype, device=device, requires_grad=True) * 2.0
    plain, _, _ = _saved_at_the_end_of_the_forward_pass(lambda t: f(t, nest=lambda fn: fn), h)
    for around in (lambda fn: lambda t: ck.checkpoint(fn, t), lambda fn: ck.remat(fn, ck.save_everything)):
        held, saved, _ = _saved_at_the_end_of_the_forward_pass(around(f), h)
        assert held == _saved_at_the_end_of_the_forward_pass(around(lambda t: t.tanh()), h)[0]
        assert saved == plain - held
