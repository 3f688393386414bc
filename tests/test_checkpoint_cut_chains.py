"""A chain cut in the middle -- a layer that ``.detach()``es its input, or runs under ``no_grad``,
after layers that recorded ops -- holds, measured, what the planner predicts, for every plan.

No backward reaches the layers before a cut.  A plain run's nodes there die with their tensors
when the cutting layer returns; the model counted them as held until backward
(``[Linear, Tanh] [detach] [Linear, Tanh]`` run plainly: 72 bytes predicted, 48 measured), and a
segment before the cut -- a reference cycle of the segment and its nodes -- held its kept input
until the garbage collector ran (``[0:1]* [1:3]`` of that chain: 48 bytes still held after the
backward).  A segment over the cut replayed the layers before it when the layer after read the
detached array (it was one a node there made), holding their saved values during the replay;
and a model that left the dead layers out entirely under-predicted the forward pass, which holds
them until the cut (24 bytes predicted, 48 measured).

Now: ``run_plan`` lets go of the segments before a cut there and then, a checkpointed block
reads a value its chain cut off as a kept value (``Segment.cut_off``), and the model
(``LayerProfile.cuts``, ``ChainProfile.live``) counts the layers before the last cut only while
the forward pass goes through them.  Gradients are bitwise those of the plain run.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import Block, Plan
from minigrad_ckpt.checkpoint.planner import plan_cost

W = 3


class Layer(nn.Module):
    """``fn(x)``, run under ``no_grad`` where asked (its modules' parameters are its own)."""

    def __init__(self, fn, off_the_tape=False) -> None:
        super().__init__()
        self.fn, self.off_the_tape = fn, off_the_tape

    def forward(self, x):
        with mg.no_grad() if self.off_the_tape else contextlib.nullcontext():
            return self.fn(x)


LAYERS = {
    "lin": lambda: nn.Linear(W, W),
    "tanh": nn.Tanh,
    "lintanh": lambda: nn.Sequential(nn.Linear(W, W), nn.Tanh()),
    "detach": lambda: Layer(lambda x: x.detach()),               # the very array, cut off
    "detach-tanh": lambda: Layer(lambda x: mg.tanh(x.detach())),  # a new array made off the tape
    "nograd-lin": lambda: Layer(nn.Linear(W, W), off_the_tape=True),
    "exp": lambda: Layer(mg.exp),
    "scale": lambda: Layer(lambda x: x * 3.0),
}
CHAINS = {
    "lin-detach-tanh-lin": ["lin", "detach", "tanh", "lin"],
    "detach-then-recorded": ["lintanh", "detach", "lintanh"],
    "detach-tanh": ["lintanh", "detach-tanh", "exp", "lin"],
    "no-grad-layer": ["lin", "nograd-lin", "tanh", "lintanh"],
    "no-grad-third": ["lin", "tanh", "nograd-lin", "exp", "lin"],
    "detach-long": ["lintanh", "detach", "exp", "scale", "lintanh"],
    "two-cuts": ["lintanh", "detach", "lin", "nograd-lin", "lintanh"],
}


def _chain(name, device, requires_grad):
    mg.manual_seed(0)
    layers = [LAYERS[k]().to(device) for k in CHAINS[name]]
    return layers, mg.randn(2, W, device=device, requires_grad=requires_grad)


def _step(layers, x, plan):
    """(the ledger's peak, what it holds after, the parameters' gradients) of one training step"""
    for p in (p for layer in layers for p in layer.parameters()):
        p.grad = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, x).sum().backward()
    grads = [p.grad.numpy().copy() for layer in layers for p in layer.parameters() if p.grad is not None]
    return ledger.peak("saved"), ledger.live("saved"), grads


SEAMS = [(chain, "cpu", False) for chain in sorted(CHAINS)] + [
    ("detach-then-recorded", "strict-f32", False), ("no-grad-layer", "strict-f32", True),
    ("two-cuts", "strict-f32", True), ("lin-detach-tanh-lin", "cpu", True), ("detach-long", "cpu", True)]


@pytest.mark.parametrize("chain, device, requires_grad", SEAMS)
def test_every_plan_of_a_cut_chain_holds_its_prediction(chain, device, requires_grad):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    layers, x = _chain(chain, device, requires_grad)
    profile = ck.profile_chain(layers, x, repeats=1)
    assert any(lp.cuts for lp in profile.layers)
    plain = Plan(tuple(Block(i, i + 1, False) for i in range(len(layers))))
    _, _, want = _step(layers, x, plain)
    nested = ck.brute_force_nested_plans(profile)
    plans = ck.brute_force_plans(profile) + nested[::3 if len(layers) <= 4 else 37]
    for plan in plans:
        peak, held_after, grads = _step(layers, x, plan)
        assert (peak, held_after) == (ck.simulate_peak(profile, plan), 0), plan
        for g, w in zip(grads, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=str(plan))


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_the_planners_plan_a_cut_chain_with_the_same_model(chain):
    layers, x = _chain(chain, "cpu", False)
    profile = ck.profile_chain(layers, x, repeats=1)
    smallest = min(ck.simulate_peak(profile, q) for q in ck.brute_force_nested_plans(profile))
    assert ck.min_peak_bytes(profile) == smallest
    assert ck.flat_min_peak_bytes(profile) == min(ck.simulate_peak(profile, q) for q in ck.brute_force_plans(profile))
    flat = ck.flat_plan_for_budget(profile, ck.flat_min_peak_bytes(profile))
    optimal = ck.plan_chain(layers, x, ck.Optimal(None), profile=profile)
    for plan in (ck.plan_for_budget(profile, smallest), flat, optimal):
        assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) == _step(layers, x, plan)[0]
        assert plan.recompute_seconds == plan_cost(profile, plan)
    with pytest.raises(ck.InfeasibleBudgetError) as info:
        ck.plan_for_budget(profile, smallest - 1)
    assert info.value.smallest_feasible_bytes == smallest
    for p in ck.pareto_plans(profile):
        assert p.predicted_peak_bytes == ck.simulate_peak(profile, p)


def test_the_layers_before_a_cut_are_never_replayed():
    # [lintanh, detach, lintanh, tanh] in one segment: the layer after the cut keeps the detached
    # array and replays from it; the first linear and tanh, which no backward reaches, never run
    # again (they did: the detached array was one a node there made, so the replay made it again)
    mg.manual_seed(0)
    layers = [LAYERS[k]() for k in ("lintanh", "detach", "lintanh", "tanh")]
    x = mg.randn(2, W)
    plan = Plan((Block(0, 4, True),))
    ck.reset_statistics()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        ck.run_plan(layers, plan, x).sum().backward()
    assert ck.statistics().recomputed_ops == 2  # the second linear and tanh (the last tanh's output is kept)
    assert ck.recomputed_layers(ck.profile_chain(layers, x, repeats=1), plan) == 1


def test_a_layer_that_keeps_what_it_cut_off_still_gets_its_backward():
    # [Linear+Tanh, a layer returning its input detached but keeping it, Linear] in one segment:
    # a backward through the kept tensor reaches the first linear, as without checkpointing
    # (letting go of the layers before the cut must not let go of what a tensor still reaches)
    mg.manual_seed(0)
    stash = []

    def keep_and_cut(t):
        stash.append(t)
        return t.detach()

    layers = [LAYERS["lintanh"](), Layer(keep_and_cut), LAYERS["lin"]()]
    x = mg.randn(2, W)
    grads = []
    for plan in (Plan((Block(0, 3, True),)), Plan(tuple(Block(i, i + 1, False) for i in range(3)))):
        stash.clear()
        for p in (p for layer in layers for p in layer.parameters()):
            p.grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ck.CheckpointCostWarning)
            (ck.run_plan(layers, plan, x).sum() + stash[0].sum()).backward()
        grads.append([p.grad.numpy().copy() for layer in layers for p in layer.parameters()])
    for g, w in zip(*grads, strict=True):
        np.testing.assert_array_equal(g, w)
