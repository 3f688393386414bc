"""A layer a replay runs in part costs, in the planner's model, exactly what the replay runs of it.

A replay runs a layer in full only where something after it in the replay reads its output;
elsewhere it runs the ops the layer's own saved values need and no more: ``[Linear, Tanh, Linear]``
ending a block runs its first linear and its tanh, ``[Tanh, x * 3]`` its tanh, ``x + tanh(p)``
only ``tanh(p)`` -- and the layer before that one is then not needed in full either.  The cost
model charged such a layer its whole forward time (``plan_cost`` of the first chain below differed
from the work its replays ran for 79 of its 89 one-level plans), and the nested planner, whose
tables charged a plain layer in full wherever the level went on after it, chose a plan that
replays 24 units where one replaying 17 fits the same budget.

Measured with a clock only the ops move, each by its weight: ``profile_chain``'s seconds are then
exact op weights, and the replays' work is counted in the same units, op by op.
"""

from __future__ import annotations

import math
import random
import types
import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import model, profiling
from minigrad_ckpt.checkpoint.planner import Block, ChainProfile, LayerProfile, Plan, plan_cost
from minigrad_ckpt.ops import elementwise, linalg

W = 3
WEIGHTS = {linalg.Linear: 5.0, elementwise.Tanh: 2.0, elementwise.Exp: 3.0, elementwise.Mul: 1.0,
           elementwise.Add: 1.0}


class OpClock:
    """Time that passes only in the weighted ops' forwards; ``replayed`` counts those of replays."""

    def __init__(self) -> None:
        self.now = 0.0
        self.replayed = 0.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def op_clock(monkeypatch):
    clock = OpClock()
    for cls, weight in WEIGHTS.items():
        def forward(self, xp, *args, _forward=cls.forward, _weight=weight):
            clock.now += _weight
            if mg.is_recomputing():
                clock.replayed += _weight
            return _forward(self, xp, *args)
        monkeypatch.setattr(cls, "forward", forward)
    monkeypatch.setattr(profiling, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    return clock


class Fn(nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class BiasTanh(nn.Module):
    """``x + tanh(p)``: a replay that reads nothing it outputs runs ``tanh(p)`` alone, from the parameter."""

    def __init__(self) -> None:
        super().__init__()
        self.p = nn.Parameter(mg.randn(W) * 0.5)

    def forward(self, x):
        return x + mg.tanh(self.p)


LAYERS = {  # (weight in full; where nothing reads its output)
    "lin-tanh-lin": lambda: nn.Sequential(nn.Linear(W, W), nn.Tanh(), nn.Linear(W, W)),  # 12; 7
    "scale": lambda: Fn(lambda x: x * 3.0),                                             # 1; 0, not its input
    "tanh-scale": lambda: nn.Sequential(nn.Tanh(), Fn(lambda x: x * 3.0)),               # 3; 2
    "bias-tanh": BiasTanh,                                                              # 3; 2, not its input
    "exp-tanh": lambda: nn.Sequential(Fn(mg.exp), nn.Tanh()),                            # 5; kept output: 3
    "linear": lambda: nn.Linear(W, W),                                                  # 5; 0
    "exp-scale": lambda: Fn(lambda x: mg.exp(x) * 0.5),                                 # 4; 3
}
CHAINS = {
    "mixed-5": ["lin-tanh-lin", "scale", "tanh-scale", "bias-tanh", "exp-tanh"],
    "skips-4": ["tanh-scale", "bias-tanh", "exp-scale", "scale"],
    "linear-5": ["linear", "exp-scale", "scale", "lin-tanh-lin", "bias-tanh"],
    "mixed-6": ["exp-scale", "bias-tanh", "lin-tanh-lin", "scale", "tanh-scale", "exp-tanh"],
}


def _chain(name, device="cpu"):
    mg.manual_seed(0)
    layers = [LAYERS[k]().to(device) for k in CHAINS[name]]
    # (an input that requires grad: every op of every layer is recorded, so a replay can run it)
    return layers, mg.randn(2, W, device=device, requires_grad=True)


def _replayed(clock, layers, x, plan):
    """The weighted op forwards the replays of one training step under ``plan`` run."""
    clock.replayed = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        ck.run_plan(layers, plan, x).sum().backward()
    return clock.replayed


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_a_layer_run_in_part_is_charged_what_its_replay_runs(op_clock, device):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    layers, x = _chain("mixed-5", device)
    profile = ck.profile_chain(layers, x)
    # [0:4] ends in x + tanh(p): tanh(p) (2), then the tanh of [Tanh, x * 3] (2), then x * 3 in full
    # (1: the tanh reads it) and the first layer in full (12) -- 17, where 19 was charged
    plan = Plan((Block(0, 4, True), Block(4, 5, False)))
    assert _replayed(op_clock, layers, x, plan) == 17.0 == plan_cost(profile, plan)
    assert ck.recomputed_layers(profile, plan) == 4
    # [0:1] alone: the first linear and the tanh of [Linear, Tanh, Linear], not its second linear
    plan = Plan((Block(0, 1, True), *(Block(i, i + 1, False) for i in range(1, 5))))
    assert _replayed(op_clock, layers, x, plan) == 7.0 == plan_cost(profile, plan)
    lp = profile.layers
    assert [p.forward_seconds for p in lp] == [12.0, 1.0, 3.0, 3.0, 5.0]
    assert [p.own_work() for p in lp[:4]] == [(7.0, True, True), (0.0, False, False), (2.0, True, True),
                                              (2.0, True, False)]
    assert lp[4].last_work() == (3.0, True, True)


def test_a_layer_that_records_nothing_is_never_replayed(op_clock):
    # an input that needs no gradient: [Tanh, x * 3] has no parameter, so no op of it is recorded,
    # and a segment keeps its output as a value -- no replay runs it (it was charged 3 of 9)
    layers, _ = _chain("skips-4")
    x = mg.randn(2, W)
    profile = ck.profile_chain(layers, x)
    for plan in ck.brute_force_plans(profile):
        assert _replayed(op_clock, layers, x, plan) == plan_cost(profile, plan), plan
    assert not profile.layers[0].recorded and profile.layers[1].recorded


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_every_plan_costs_what_its_replays_run(op_clock, chain):
    """Every one-level plan, and every nested plan of the shorter chains (of the six-layer chain
    every tenth), run in the engine: ``plan_cost`` is the work counted, exactly."""
    layers, x = _chain(chain)
    profile = ck.profile_chain(layers, x)
    plans = ck.brute_force_plans(profile) + ck.brute_force_nested_plans(profile)[::1 if len(layers) <= 5 else 10]
    for plan in plans:
        assert plan_cost(profile, plan) == plan.recompute_seconds == _replayed(op_clock, layers, x, plan), plan


# ----------------------------------------------------------------- the planners on random chains
def partial_profile(rng, n):
    """A random chain of the nested planner's domain whose layers run in part where nothing reads
    their output (``own_seconds``), some of them without their input (``own_wants_input``)."""
    layers = []
    sizes = [rng.choice([0, 4, 8, 16])] + [rng.choice([4, 8, 12, 16, 24]) for _ in range(n)]
    for i in range(n):
        seconds = float(rng.randint(1, 9))
        saves_output = rng.random() < 0.4
        layers.append(LayerProfile(
            i, i + 1, {i: sizes[i], i + 1: sizes[i + 1]}, rng.random() < 0.4, saves_output,
            {(i, 0): rng.choice([4, 8, 16])} if rng.random() < 0.5 else {},
            {(i, 1): rng.choice([4, 8])} if rng.random() < 0.2 else {}, forward_seconds=seconds,
            keeps_output=saves_output and rng.random() < 0.6, kept_output_seconds=rng.choice([None, 0.0, seconds / 2]),
            own_seconds=rng.choice([None, 0.0, seconds / 3, seconds]), own_wants_input=rng.choice([None, False, True]),
            kept_wants_input=rng.choice([None, False, True])))
    return ChainProfile(layers)


def partial_chains(seed, count, lengths):
    """``count`` random chains of :func:`partial_profile`, their lengths drawn from ``lengths``."""
    rng = random.Random(seed)
    return [partial_profile(rng, rng.choice(lengths)) for _ in range(count)]


def cost_eq(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


def check_least_work_at_every_peak(planner, profile, every):
    """``planner(profile, budget)`` at every peak of the plans ``every``: the least cost that fits."""
    for budget in sorted({q.predicted_peak_bytes for q in every}):
        plan = planner(profile, budget)
        assert plan.predicted_peak_bytes <= budget
        assert cost_eq(plan.recompute_seconds, min(q.recompute_seconds for q in every
                                                   if q.predicted_peak_bytes <= budget)), (budget, plan)


@pytest.mark.parametrize("seed", range(6))
def test_the_one_level_planners_are_optimal_where_layers_run_in_part(seed):
    for profile in partial_chains(seed, 5, range(2, 7)):
        every = ck.brute_force_plans(profile)
        check_least_work_at_every_peak(ck.flat_plan_for_budget, profile, every)
        for p in ck.pareto_plans(profile):  # the one-level frontier's costs are plan_cost's
            assert cost_eq(p.recompute_seconds, plan_cost(profile, p))
            assert not any(q.predicted_peak_bytes <= p.predicted_peak_bytes
                           and q.recompute_seconds < p.recompute_seconds - 1e-9 for q in every), p


@pytest.mark.parametrize("seed", range(3))
def test_the_vectorized_one_level_planner_agrees_with_the_general_one(seed):
    for profile in partial_chains(100 + seed, 6, range(8, 31)):
        local, general = model._LocalChain.of(profile), model._Transitions(profile, True, None)
        smallest = ck.flat_min_peak_bytes(profile)
        for budget in (smallest, smallest + 8, 2 * smallest, 4 * smallest):
            b1, c1 = model._budget_general(general, budget)
            b2, c2 = model._budget_local(local, budget)
            assert cost_eq(c1, c2) and cost_eq(c2, plan_cost(profile, b2)), (budget, b1, b2)


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_optimal_is_the_least_replayed_work_that_fits(op_clock, chain):
    """``Optimal(budget)``, at every peak a plan reaches and between them, against every nested
    plan: the least work whose ``simulate_peak`` fits -- and its replays run that work."""
    layers, x = _chain(chain)
    profile = ck.profile_chain(layers, x)
    every = ck.brute_force_nested_plans(profile)
    peaks = sorted({q.predicted_peak_bytes for q in every})
    for budget in sorted(set(peaks) | {(a + b) // 2 for a, b in zip(peaks, peaks[1:])}):
        chosen = ck.plan_chain(layers, x, ck.Optimal(budget), profile=profile)
        least = min(q.recompute_seconds for q in every if q.predicted_peak_bytes <= budget)
        assert chosen.predicted_peak_bytes == ck.simulate_peak(profile, chosen) <= budget
        assert chosen.recompute_seconds == least == _replayed(op_clock, layers, x, chosen), (budget, chosen)
        flat = ck.flat_plan_for_budget(profile, budget) if budget >= ck.flat_min_peak_bytes(profile) else None
        if flat is not None:
            assert flat.recompute_seconds == min(q.recompute_seconds for q in every
                                                 if q.depth <= 1 and q.predicted_peak_bytes <= budget)


@pytest.mark.parametrize("seed", range(6))
def test_the_nested_planner_is_optimal_where_layers_run_in_part(seed):
    for profile in partial_chains(seed, 25, range(2, 6)):
        check_least_work_at_every_peak(ck.plan_for_budget, profile, ck.brute_force_nested_plans(profile))


def test_a_uniform_chain_of_partly_replayed_layers_is_planned_by_its_length():
    # [Tanh, x * 3]-like layers: the nested planner's uniform tables take them, the cost its count
    layer = dict(saves_input=False, saves_output=False, forward_seconds=3.0, own_seconds=2.0, own_wants_input=True)
    profile = ChainProfile([LayerProfile(i, i + 1, {i: 8, i + 1: 8}, local_saved={(i, 0): 8}, **layer)
                            for i in range(12)])
    plan = ck.plan_for_budget(profile, 5 * 16)
    assert plan.recompute_seconds == plan_cost(profile, plan) and math.isfinite(plan.recompute_seconds)
    assert ck.simulate_peak(profile, plan) <= 5 * 16


# ------------------------------------------------- layers that record no op: what a segment keeps
# On an input that needs no gradient, the leading layers without a parameter record no op; a segment
# over them keeps what its first recorded op reads (the last such layer's output), not the block's input,
# and one over them alone keeps nothing.  The model kept the block's input: [0:1]* [1:4]* of "skips-4"
# was predicted 84 bytes, the ledger measured 60 (13 of its 34 one-level plans disagreed).
UNRECORDED_CHAINS = {
    "skips-4": ["tanh-scale", "bias-tanh", "exp-scale", "scale"],
    "two-first": ["scale", "tanh-scale", "bias-tanh", "exp-tanh"],
    "linear-third": ["exp-scale", "scale", "linear", "tanh-scale", "exp-tanh"],
    "three-first": ["tanh-scale", "exp-tanh", "scale", "bias-tanh", "scale"],
    "lin-fourth": ["scale", "exp-scale", "tanh-scale", "lin-tanh-lin", "exp-tanh"],
    "identity-first": ["identity", "bias-tanh", "exp-scale", "scale"],  # [0:1]* keeps nothing
    "view-second": ["scale", "view", "bias-tanh", "exp-tanh"],
}
UNRECORDED_LAYERS = {**LAYERS, "identity": nn.Identity,
                     "view": lambda: Fn(lambda x: x.reshape(W, -1).reshape(-1, W))}  # views of one buffer


def _ledger_peak(layers, x, plan):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, x).sum().backward()
    return ledger.peak("saved")


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("chain", sorted(UNRECORDED_CHAINS))
def test_the_ledger_equals_the_model_where_leading_layers_record_nothing(chain, device):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    mg.manual_seed(0)
    layers = [UNRECORDED_LAYERS[k]().to(device) for k in UNRECORDED_CHAINS[chain]]
    x = mg.randn(2, W, device=device)  # needs no gradient
    profile = ck.profile_chain(layers, x)
    assert not profile.layers[0].recorded and profile.layers[-1].recorded
    nested = ck.brute_force_nested_plans(profile)
    plans = ck.brute_force_plans(profile) + nested[::1 if len(layers) <= 4 else 7]
    for plan in plans:
        assert ck.simulate_peak(profile, plan) == _ledger_peak(layers, x, plan), plan
    # the planners plan with the same model: the smallest peak is the brute force's, and reached
    smallest = min(ck.simulate_peak(profile, q) for q in nested)
    assert ck.min_peak_bytes(profile) == smallest
    plan = ck.plan_for_budget(profile, smallest)
    assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) == _ledger_peak(layers, x, plan) <= smallest


def test_nested_plans_go_below_one_level_after_layers_that_record_nothing():
    # a chain that starts with a layer recording no op still nests: that layer plain, the rest
    # planned by the nested planner, the ledger equal to the model
    n = 16
    mg.manual_seed(0)
    layers = [LAYERS["scale"]()] + [nn.Sequential(nn.Linear(W, W), nn.Tanh()) for _ in range(n)]
    x = mg.randn(2, W)
    profile = ck.profile_chain(layers, x, repeats=1)
    budget = ck.flat_min_peak_bytes(profile) - 2 * W * 4
    with pytest.raises(ck.InfeasibleBudgetError):  # one level cannot
        ck.flat_plan_for_budget(profile, budget)
    plan = ck.plan_for_budget(profile, budget)
    assert plan.depth >= 2 and plan.blocks[0] == Block(0, 1, False)
    assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) == _ledger_peak(layers, x, plan) <= budget
    assert ck.min_peak_bytes(profile) < ck.flat_min_peak_bytes(profile)
