"""Nested (multi-level) checkpoint plans: segments inside replayed segments.

* ``Block(start, stop, True, blocks=(...))`` runs bitwise like no checkpointing (dropout
  included) and the memory ledger's peak equals ``simulate_peak`` at every depth;
* ``plan_for_budget`` (``Optimal``) is the least recompute among nested plans, checked
  against ``brute_force_nested_plans`` on short chains;
* on a uniform chain whose layers' backward reads only their input, at a budget of
  ``s + 1`` layers' activations, the layer forwards it recomputes are Revolve's optimum
  ``revolve_extra_forwards(n, s) - (n - 1)`` -- in the model and counted in the engine;
  on one whose layers' backward reads their input and output (a tanh MLP), the same
  count at ``s + 2`` layers' activations: a checkpointed block keeps its output;
* the two old defects: the last layer of a block whose replay skips it is not charged,
  and an outer replay does not run the layers of the segments nested in it.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from checkpoint_steps import plan_step

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint.nested import nested_plan_for_budget
from minigrad_ckpt.checkpoint.planner import Block, ChainProfile, LayerProfile, Plan, plan_cost


def cost_eq(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


def uniform_profile(n, a=8, saves_output=False):
    return ChainProfile([LayerProfile(i, i + 1, {i: a, i + 1: a}, True, saves_output, forward_seconds=1.0,
                                      keeps_output=saves_output) for i in range(n)])


def local_profile(rng, n):
    """A random chain with no views and no shared constants (the nested planner's domain)."""
    layers = []
    sizes = [rng.choice([0, 4, 8, 16])] + [rng.choice([4, 8, 12, 16, 24]) for _ in range(n)]
    for i in range(n):
        local = {(i, 0): rng.choice([4, 8, 16])} if rng.random() < 0.3 else {}
        external = {(i, 1): rng.choice([4, 8])} if rng.random() < 0.2 else {}
        saves_output = rng.random() < 0.5
        layers.append(LayerProfile(i, i + 1, {i: sizes[i], i + 1: sizes[i + 1]}, rng.random() < 0.7,
                                   saves_output, local, external, forward_seconds=float(rng.randint(1, 9)),
                                   keeps_output=saves_output and rng.random() < 0.6,
                                   kept_output_seconds=rng.choice([None, 0.5, 2.0])))
    return ChainProfile(layers)


# ------------------------------------------------------------------------------- plan types
def test_nested_blocks_must_cover_their_block_with_absolute_indices():
    inner = (Block(2, 4, True), Block(4, 5, False))
    b = Block(2, 5, True, inner)
    assert b.inner == inner and b.depth == 2
    assert Block(0, 3, True).inner == tuple(Block(i, i + 1, False) for i in range(3))
    with pytest.raises(ValueError, match="absolute"):
        Block(2, 5, True, (Block(0, 2, True), Block(2, 3, False)))
    with pytest.raises(ValueError, match="end at 4"):
        Block(2, 5, True, (Block(2, 4, True),))
    with pytest.raises(ValueError, match="plain block"):
        Block(0, 2, False, (Block(0, 1, False), Block(1, 2, False)))
    plan = Plan((Block(0, 4, True, (Block(0, 2, True), Block(2, 3, False), Block(3, 4, False))), Block(4, 5, False)))
    assert plan.depth == 2
    assert "[0:4]*{[0:2]* [2:4]} [4:5]" in plan.describe()


def test_a_plan_must_cover_every_layer_of_the_chain_it_runs():
    # A gap, a reversed block, or a plan shorter or longer than the chain skipped layers (or ran
    # past the end) without a word: run_plan([l0, l1, l2], Plan((Block(0, 2, True),)), x) ran two
    # layers, simulate_peak predicted for the wrong length
    with pytest.raises(ValueError, match=r"in order.*\(0, 1\), \(2, 3\)"):
        Plan((Block(0, 1, True), Block(2, 3, False)))
    with pytest.raises(ValueError, match="in order"):
        Plan((Block(2, 1, True),))
    mg.manual_seed(0)
    layers = [nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4)]
    x = mg.randn(2, 4)
    profile = ck.profile_chain(layers, x)
    for blocks in [(Block(0, 2, True),), (Block(0, 2, True), Block(2, 5, False))]:
        with pytest.raises(ValueError, match=f"covers {blocks[-1].stop} layers, but there are 3"):
            ck.run_plan(layers, Plan(blocks), x)
        with pytest.raises(ValueError, match=f"covers {blocks[-1].stop} layers, but there are 3"):
            ck.simulate_peak(profile, Plan(blocks))
        with pytest.raises(ValueError, match=f"covers {blocks[-1].stop} layers, but there are 3"):
            ck.checkpoint_sequential(layers, Plan(blocks), x)


# ------------------------------------------------------------------------- the model and DP
def test_the_last_layer_of_a_block_is_free_when_its_replay_skips_it():
    # layer 1 is slow and its backward reads only its input: a block ending with it replays
    # layer 0 alone (1 s).  The old model charged 1 + 5 = 6 s for it, so it chose a block
    # [1, 3) instead (5 s) at a budget both fit.
    L = LayerProfile
    profile = ChainProfile([L(0, 1, {0: 8, 1: 8}, True, True, forward_seconds=1.0),
                            L(1, 2, {1: 8, 2: 8}, True, False, forward_seconds=5.0),
                            L(2, 3, {2: 8, 3: 8}, True, False, forward_seconds=1.0)])
    cheap = (Block(0, 2, True), Block(2, 3, False))
    assert plan_cost(profile, cheap) == 1.0
    assert plan_cost(profile, (Block(0, 1, False), Block(1, 3, True))) == 5.0
    assert ck.simulate_peak(profile, cheap) == 16 < ck.simulate_peak(profile, [Block(i, i + 1, False)
                                                                              for i in range(3)])
    plan = ck.plan_for_budget(profile, 16)
    assert plan.recompute_seconds == 1.0 and plan.blocks == cheap, plan


def test_an_outer_replay_does_not_run_the_layers_of_a_nested_segment_it_ends_with():
    profile = uniform_profile(6)
    flat = (Block(0, 5, True), Block(5, 6, False))
    nested = (Block(0, 5, True, (Block(0, 1, False), Block(1, 2, False), Block(2, 3, False), Block(3, 5, True))),
              Block(5, 6, False))
    # flat: layers 0..3 (4 skipped); nested: the outer runs 0..2 (not 3, 4), the inner runs 3 (4 skipped)
    assert ck.recomputed_layers(profile, flat) == 4
    assert ck.recomputed_layers(profile, nested) == 4
    deeper = (Block(0, 5, True, (Block(0, 2, True), Block(2, 5, True, (Block(2, 4, True), Block(4, 5, False))))),
              Block(5, 6, False))
    # outer: 0, 1 (to feed [2, 5)); [0, 2): 0; [2, 5): 2, 3; [2, 4): 2
    assert ck.recomputed_layers(profile, deeper) == 6


@pytest.mark.parametrize("seed", range(8))
def test_plan_for_budget_is_the_least_recompute_among_nested_plans(seed):
    rng = random.Random(seed)
    for _ in range(4):
        profile = local_profile(rng, rng.randint(1, 5))
        every = ck.brute_force_nested_plans(profile)
        peaks = sorted({q.predicted_peak_bytes for q in every})
        for budget in sorted(set(peaks) | {p + 3 for p in peaks}):
            plan = ck.plan_for_budget(profile, budget)
            best = min(q.recompute_seconds for q in every if q.predicted_peak_bytes <= budget)
            assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) <= budget
            assert cost_eq(plan.recompute_seconds, best), (budget, plan)
        assert ck.min_peak_bytes(profile) == peaks[0]
        # just below the smallest peak -- also where that is 0 (a chain that saves nothing), and a
        # negative budget, which made the nested planner index its tables at -1 (IndexError)
        for budget in (peaks[0] - 1, -1):
            with pytest.raises(ck.InfeasibleBudgetError) as info:
                ck.plan_for_budget(profile, budget)
            assert info.value.smallest_feasible_bytes == peaks[0]


@pytest.mark.parametrize("seed", range(6))
def test_plan_for_budget_is_the_least_recompute_where_replays_skip_more_than_the_last_layer(seed):
    # layers that neither save their input nor arrays of their own: a replay skipping a block's
    # last layer skips them too (plan_cost says so), and the planners must still find the least
    rng = random.Random(100 + seed)
    for _ in range(4):
        profile = local_profile(rng, rng.randint(2, 5))
        for lp in profile.layers:
            lp.saves_input = lp.saves_input and rng.random() < 0.5
            lp.local_saved = lp.local_saved if rng.random() < 0.5 else {}
        every = ck.brute_force_nested_plans(profile)
        for budget in sorted({q.predicted_peak_bytes for q in every}):
            plan = ck.plan_for_budget(profile, budget)
            best = min(q.recompute_seconds for q in every if q.predicted_peak_bytes <= budget)
            assert plan.predicted_peak_bytes <= budget and cost_eq(plan.recompute_seconds, best), (budget, plan)
            assert cost_eq(plan.recompute_seconds, plan_cost(profile, plan))
            found = nested_plan_for_budget(profile, budget)  # the nested program alone: the least too
            assert found is not None and cost_eq(found[1], plan_cost(profile, found[0])), (budget, found)
            assert cost_eq(found[1], best), (budget, found)


def test_a_budget_below_zero_is_infeasible_for_a_chain_that_saves_nothing():
    # BatchNorm on a leaf input then a product by a number: the leaf is not counted, the product
    # saves nothing, so the smallest peak is 0 -- and a budget of -1 raised IndexError
    layers = [nn.BatchNorm1d(6), lambda t: t * 3.0]
    profile = ck.profile_chain(layers, mg.randn(4, 6, requires_grad=True))
    assert ck.min_peak_bytes(profile) == 0
    with pytest.raises(ck.InfeasibleBudgetError) as info:
        ck.plan_for_budget(profile, -1)
    assert info.value.smallest_feasible_bytes == 0


def test_brute_force_nested_plans_are_every_nesting():
    # 1 layer: plain, or one block; 2 layers: 2 flat-plain, [0:1]*+p, p+[1:2]*, [0:1]*[1:2]*, [0:2]*,
    # and [0:2]* with an inner checkpointed block ([0:1]* [1:2] or [0:1] [1:2]* or both)
    assert len(ck.brute_force_nested_plans(uniform_profile(1))) == 2
    assert len(ck.brute_force_nested_plans(uniform_profile(2))) == 8


@pytest.mark.parametrize("s", [1, 2, 3, 4, 5])
def test_recompute_on_a_uniform_chain_is_revolves_optimum(s):
    for n in range(1, 41):
        profile = uniform_profile(n)
        plan = ck.plan_for_budget(profile, (s + 1) * 8)
        assert plan.predicted_peak_bytes <= (s + 1) * 8
        assert ck.recomputed_layers(profile, plan) == ck.revolve_extra_forwards(n, s) - (n - 1), (n, plan)


@pytest.mark.parametrize("s", [2, 3, 6])
def test_recompute_on_a_200_layer_uniform_chain_is_revolves_optimum(s):
    profile = uniform_profile(200)
    plan = ck.plan_for_budget(profile, (s + 1) * 8)
    assert ck.recomputed_layers(profile, plan) == ck.revolve_extra_forwards(200, s) - 199
    if s == 2:  # the old replay, which ran nested segments' layers again, needed 2,432
        assert ck.recomputed_layers(profile, plan) == 2271


@pytest.mark.parametrize("s", [1, 2, 3, 4, 5])
def test_recompute_on_a_chain_of_tanh_like_layers_is_revolves_optimum_one_activation_up(s):
    # a layer that saves its input and output holds one activation more while it is
    # reversed; a checkpointed block keeps its output, so its replay never reruns its last
    # layer just to make that output again: Revolve's count at s + 2 layers' budget
    for n in [*range(1, 41), 200]:
        profile = uniform_profile(n, saves_output=True)
        plan = ck.plan_for_budget(profile, (s + 2) * 8)
        assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) <= (s + 2) * 8
        assert ck.recomputed_layers(profile, plan) == ck.revolve_extra_forwards(n, s) - (n - 1), (n, plan)


def test_a_block_keeps_its_output_where_its_last_layer_saves_it():
    keeps = uniform_profile(3, saves_output=True)
    recomputes = ChainProfile([LayerProfile(i, i + 1, {i: 8, i + 1: 8}, True, True, forward_seconds=1.0)
                               for i in range(3)])
    block = (Block(0, 2, True), Block(2, 3, False))
    # kept: the replay runs layer 0 only, and the block holds its input and output (16 B)
    assert ck.recomputed_layers(keeps, block) == 1 and ck.recomputed_layers(recomputes, block) == 2
    assert keeps.kept_items(0, 2) == {("B", 0): 8, ("B", 2): 8} and recomputes.kept_items(0, 2) == {("B", 0): 8}
    # layer 2 saves its input, the same array: the peak is the same either way
    assert ck.simulate_peak(keeps, block) == ck.simulate_peak(recomputes, block) == 24


# ------------------------------------------------------------------------------ the engine
class Scale(nn.Module):
    """``x * w``: one op whose backward reads only its input (and w, a parameter)."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.w = nn.Parameter(mg.randn(width) * 0.5 + 1.0)

    def forward(self, x):
        return x * self.w


_step = plan_step  # tests/checkpoint_steps.py


@pytest.mark.parametrize("s", [1, 2, 3])
def test_the_engine_recomputes_revolves_count_and_measures_the_predicted_peak(s):
    n, width = 14, 6
    mg.manual_seed(0)
    layers = [Scale(width) for _ in range(n)]
    x = mg.randn(3, width)
    a = 3 * width * 4
    profile = ck.profile_chain(layers, x)
    plan = ck.plan_for_budget(profile, (s + 1) * a)
    _, plain_grads, _ = _step(layers, x, ck.NoCheckpointing().plan(n))
    peak, grads, ops = _step(layers, x, plan)
    assert ops == ck.revolve_extra_forwards(n, s) - (n - 1) == ck.recomputed_layers(profile, plan)
    assert peak == plan.predicted_peak_bytes <= (s + 1) * a
    for g, h in zip(plain_grads, grads):
        np.testing.assert_array_equal(g, h)


def _dropout_chain(n, width=8):
    mg.manual_seed(0)
    return [nn.Sequential(nn.Linear(width, width), nn.Tanh(), *([nn.Dropout(0.3)] if i % 3 == 0 else []))
            for i in range(n)]


@pytest.mark.parametrize("units", [3, 4, 5, 7])
def test_nested_plans_train_bitwise_with_dropout_and_the_ledger_equals_the_model(units):
    n, width = 18, 8
    layers = _dropout_chain(n, width)
    x = mg.randn(4, width)
    a = 4 * width * 4
    profile = ck.profile_chain(layers, x)
    plan = ck.plan_for_budget(profile, units * a)
    assert plan.depth >= 2 or units == 7
    _, plain_grads, _ = _step(layers, x, ck.NoCheckpointing().plan(n))
    peak, grads, _ = _step(layers, x, plan)
    assert peak == plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) <= units * a
    for g, h in zip(plain_grads, grads):
        np.testing.assert_array_equal(g, h)


@pytest.mark.parametrize("s", [1, 2, 3])
def test_the_engine_keeps_a_tanh_blocks_output_and_recomputes_revolves_count(s):
    n, width = 14, 6
    mg.manual_seed(0)
    layers = [nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(n)]
    x = mg.randn(3, width)
    a = 3 * width * 4
    profile = ck.profile_chain(layers, x)
    assert all(lp.keeps_output for lp in profile.layers)
    plan = ck.plan_for_budget(profile, (s + 2) * a)
    _, plain_grads, _ = _step(layers, x, ck.NoCheckpointing().plan(n))
    peak, grads, ops = _step(layers, x, plan)
    assert ck.recomputed_layers(profile, plan) == ck.revolve_extra_forwards(n, s) - (n - 1)
    assert ops == 2 * ck.recomputed_layers(profile, plan)  # a Linear and a Tanh per layer
    assert peak == plan.predicted_peak_bytes <= (s + 2) * a
    for g, h in zip(plain_grads, grads):
        np.testing.assert_array_equal(g, h)


class Residual(nn.Module):
    """relu(x + conv(relu(conv(x)))): its backward reads its input, its inner relu's output
    and its own output (the last relu's)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.c2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return nn.functional.relu(x + self.c2(nn.functional.relu(self.c1(x))))


def test_a_residual_blocks_replay_skips_its_second_convolution_when_the_block_keeps_its_output():
    mg.manual_seed(0)
    layers = [Residual(3) for _ in range(3)]
    x = mg.randn(2, 3, 6, 6)
    profile = ck.profile_chain(layers, x)
    lp = profile.layers[1]
    assert lp.keeps_output and lp.local_saved and 0 < lp.last_seconds < lp.forward_seconds
    plan = Plan((Block(0, 2, True), Block(2, 3, False)))
    assert cost_eq(plan_cost(profile, plan), profile.layers[0].forward_seconds + lp.last_seconds)
    _, plain_grads, _ = _step(layers, x, ck.NoCheckpointing().plan(3))
    _, _, kept = _step(layers, x, Plan((Block(0, 1, True), Block(1, 2, False), Block(2, 3, False))))
    _, _, three = _step(layers, x, Plan((Block(0, 3, True),)))
    peak, grads, ops = _step(layers, x, plan)
    # a replay runs every op of a layer before the last (``full``), and of the last only its
    # first convolution and relu (``kept``): its output is the block's, kept
    full = three - ops
    assert 0 < kept < full and ops == full + kept
    assert peak == ck.simulate_peak(profile, plan)
    for g, h in zip(plain_grads, grads):
        np.testing.assert_array_equal(g, h)


def test_a_hand_written_nested_plan_runs_bitwise_with_the_predicted_peak():
    layers = _dropout_chain(8)
    x = mg.randn(4, 8)
    profile = ck.profile_chain(layers, x)
    plan = Plan((Block(0, 6, True, (Block(0, 1, False), Block(1, 4, True, (Block(1, 2, True), Block(2, 4, False))),
                                    Block(4, 6, True))),
                 Block(6, 7, False), Block(7, 8, False)))
    _, plain_grads, _ = _step(layers, x, ck.NoCheckpointing().plan(8))
    peak, grads, ops = _step(layers, x, plan)
    assert peak == ck.simulate_peak(profile, plan)
    assert ops > 0
    for g, h in zip(plain_grads, grads):
        np.testing.assert_array_equal(g, h)


def test_a_thousand_layer_chain_trains_at_twelve_layers_of_activations():
    mg.manual_seed(0)
    n, width, batch = 1000, 8, 4
    layers = [nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(n)]
    x = mg.randn(batch, width)
    a = batch * width * 4
    profile = ck.profile_chain(layers, x, repeats=1)
    with pytest.raises(ck.InfeasibleBudgetError):  # one level cannot
        ck.flat_plan_for_budget(profile, 12 * a)
    plan = ck.plan_for_budget(profile, 12 * a)
    assert plan.depth >= 2 and plan.predicted_peak_bytes <= 12 * a
    # Revolve's optimum for 10 snapshots: a tanh layer holds its input and output reversed
    assert ck.recomputed_layers(profile, plan) == ck.revolve_extra_forwards(n, 10) - (n - 1) == 2637
    with mg.memory.track() as ledger:
        ck.run_plan(layers, plan, x).sum().backward()
    assert ledger.peak("saved") == plan.predicted_peak_bytes
    assert all(p.grad is not None for layer in layers for p in layer.parameters())


def test_the_ledger_timeline_pictures_show_nested_below_one_level():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "make_pictures.py"
    spec = importlib.util.spec_from_file_location("make_pictures", path)
    pictures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pictures)
    svgs = pictures.ledger_pictures()
    assert set(svgs) == {"checkpoint-levels.svg", "checkpoint-remat.svg"}
    for svg in svgs.values():
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>") and svg.count("<polyline") >= 3
    peaks = {line.split(">")[-2].split(": peak ")[0]: float(line.split(": peak ")[1].split(" KiB")[0])
             for line in svgs["checkpoint-levels.svg"].splitlines() if ": peak " in line}
    assert peaks["nested, 6 layers' budget"] < peaks["one level (smallest)"] < peaks["no checkpointing"]


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_a_backward_that_retains_the_graph_lets_the_replayed_values_of_nested_blocks_go(device):
    """A nested block's result, made by the replay of the block around it, was kept until its
    node's backward -- and, with ``retain_graph=True``, past it: the ledger held 360 bytes after
    the backward where the forward pass left 216 (every activation of the plain run), until the
    graph died, and the next backward replayed nothing.  PyTorch clears recomputed tensors as they
    are used, retain_graph=True or not; now they go too, and each backward replays them again."""
    from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

    mg.manual_seed(0)
    layers = [m.to(device) for _ in range(4) for m in (nn.Linear(6, 6), nn.Dropout(0.25), nn.Tanh())]
    n = len(layers)
    plan = Plan((Block(0, 9, True, (Block(0, 3, True), Block(3, 6, True, (Block(3, 4, True), Block(4, 6, False))),
                                    Block(6, 9, False))), Block(9, n, False)))
    x = mg.randn(3, 6, device=device)
    params = [p for layer in layers for p in layer.parameters()]

    def grads(plan, backwards):
        for p in params:
            p.grad = None
        mg.manual_seed(5)
        ck.reset_statistics()
        with mg.memory.track() as ledger:
            loss = ck.run_plan(layers, plan, x).sum()
            held = [ledger.live("saved")]
            for _ in range(backwards - 1):
                loss.backward(retain_graph=True)
                held.append(ledger.live("saved"))
            loss.backward()
        return [p.grad.numpy().copy() for p in params], held, ck.statistics().recomputed_ops

    plain, plain_held, _ = grads(ck.NoCheckpointing().plan(n), 3)
    got, held, ops = grads(plan, 3)
    assert held == [held[0]] * 3 and held[0] < plain_held[0]  # after each retaining backward: the forward's
    _, _, once = grads(plan, 1)
    assert ops == 3 * once > 0  # each backward replays
    for a, b in zip(plain, got):
        np.testing.assert_array_equal(a, b)
