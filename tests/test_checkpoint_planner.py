"""The checkpoint planner against oracles (research/checkpointing-anchors.md section 4.1).

* The Pareto DP (``pareto_plans``) and ``flat_plan_for_budget`` against ``brute_force_plans``
  over every plan of short chains: synthetic ``ChainProfile``s (with view layers,
  constants and a parameter input) and real layers measured by ``profile_chain``.
* Section 4.1(B): the uniform-chain oracle (n=16 -> 7, n=100 -> 15) and an
  independent implementation of the research's suffix DP ``G``.
* Section 4.1(A): Revolve's recursion against its closed form and the oracle values.
"""

from __future__ import annotations

import random

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import model
from minigrad_ckpt.checkpoint.planner import Block, ChainProfile, LayerProfile, Plan, plan_cost
from minigrad_ckpt.nn import functional as F


# ----------------------------------------------------------------------------------------------
# Oracle checks shared by synthetic and measured chains
# ----------------------------------------------------------------------------------------------
def cost_eq(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-15)


def check_against_brute_force(profile, allow_plain=True):
    frontier = ck.pareto_plans(profile, allow_plain=allow_plain)
    every = ck.brute_force_plans(profile, allow_plain=allow_plain)
    assert frontier and every
    n = len(profile)
    for p in frontier:
        assert p.n_layers == n
        assert p.predicted_peak_bytes == ck.simulate_peak(profile, p), p
        assert cost_eq(p.recompute_seconds, plan_cost(profile, p.blocks)), p
        if not allow_plain:
            assert all(b.checkpointed for b in p.blocks)
    # nothing brute force finds is better in both peak and cost than the whole frontier
    for q in every:
        assert any(p.predicted_peak_bytes <= q.predicted_peak_bytes
                   and p.recompute_seconds <= q.recompute_seconds + 1e-12 for p in frontier), q
    # for every budget the cheapest feasible cost is brute force's
    peaks = sorted({q.predicted_peak_bytes for q in every})
    assert min(p.predicted_peak_bytes for p in frontier) == peaks[0]
    assert ck.flat_min_peak_bytes(profile, allow_plain=allow_plain) == peaks[0]
    for budget in peaks:
        best = min(q.recompute_seconds for q in every if q.predicted_peak_bytes <= budget)
        feasible = [p for p in frontier if p.predicted_peak_bytes <= budget]
        assert feasible, budget
        assert cost_eq(min(p.recompute_seconds for p in feasible), best), budget
    return frontier, every, peaks


def check_plan_for_budget(profile):
    """The one-level planner against every one-level plan (nested plans:
    tests/test_checkpoint_nested.py)."""
    every = ck.brute_force_plans(profile)
    peaks = sorted({q.predicted_peak_bytes for q in every})
    budgets = set(peaks) | {p + 1 for p in peaks} | {(a + b) // 2 for a, b in zip(peaks, peaks[1:])}
    for budget in sorted(budgets):
        plan = ck.flat_plan_for_budget(profile, budget)
        best = min(q.recompute_seconds for q in every if q.predicted_peak_bytes <= budget)
        assert plan.predicted_peak_bytes <= budget
        assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan)
        assert cost_eq(plan.recompute_seconds, best), (budget, plan)
        assert cost_eq(plan.recompute_seconds, plan_cost(profile, plan.blocks))
        assert plan.n_layers == len(profile)
    smallest = peaks[0]
    for budget in (smallest - 1, smallest // 2, 0):
        if budget >= smallest:
            continue
        with pytest.raises(ck.InfeasibleBudgetError) as info:
            ck.flat_plan_for_budget(profile, budget)
        assert info.value.smallest_feasible_bytes == smallest
        assert f"{smallest:,}" in str(info.value)
        assert isinstance(info.value, ValueError)
    ck.flat_plan_for_budget(profile, smallest)  # the smallest feasible budget is feasible


# ----------------------------------------------------------------------------------------------
# Synthetic profiles
# ----------------------------------------------------------------------------------------------
def random_profile(rng, n):
    """A random chain in the planner's model: unequal boundary sizes, view layers (output
    buffer = input buffer), layers that save their input and/or output (and some whose
    checkpointed blocks keep that output, as a tanh's do), local saved
    arrays, constants read from outside (some shared by several layers: one buffer), and
    sometimes a parameter input (0 bytes)."""
    shared = {("shared", j): rng.randint(1, 60) for j in range(rng.choice([0, 0, 1, 2]))}
    sizes = {0: rng.choice([0, 1, 7, 16, 40])}
    key = 0
    layers = []
    for i in range(n):
        view = i > 0 and rng.random() < 0.25
        out = key if view else key + 1
        if not view:
            sizes[out] = rng.randint(1, 64)
        saves_in = (not view) and rng.random() < 0.5
        saves_out = (not view) and rng.random() < 0.5
        local = {(i, j): rng.randint(1, 30) for j in range(rng.randint(0, 2))}
        external = {(i, 100 + j): rng.randint(1, 30) for j in range(rng.choice([0, 0, 1]))}
        for k, v in shared.items():
            if rng.random() < 0.5:
                external[k] = v
                if rng.random() < 0.5:
                    local[k] = v
        local.update({k: v for k, v in external.items() if rng.random() < 0.5})
        layers.append(LayerProfile(key, out, {key: sizes[key], out: sizes[out]}, saves_in, saves_out,
                                   local, external, forward_seconds=float(rng.randint(1, 9)),
                                   keeps_output=saves_out and rng.random() < 0.5,
                                   kept_output_seconds=rng.choice([None, 0.5, 2.0])))
        key = out
    return ChainProfile(layers)


@pytest.mark.parametrize("seed", range(12))
def test_pareto_matches_brute_force_on_synthetic_chains(seed):
    rng = random.Random(seed)
    for _ in range(10):
        profile = random_profile(rng, rng.randint(1, 7))
        check_against_brute_force(profile, allow_plain=True)
        check_against_brute_force(profile, allow_plain=False)


@pytest.mark.parametrize("seed", range(6))
def test_plan_for_budget_matches_brute_force_on_synthetic_chains(seed):
    rng = random.Random(1000 + seed)
    for _ in range(6):
        check_plan_for_budget(random_profile(rng, rng.randint(1, 7)))


def test_a_constant_shared_by_layers_is_counted_once_and_plans_stay_optimal():
    """Regression: with a constant read by several layers the DP counted it once per block,
    so plan_for_budget raised InfeasibleBudgetError (smallest_feasible_bytes 1536) for a
    budget of 1344 B that a plan meets, and chose plans with more recompute than needed."""
    L = LayerProfile
    c = {"c": 192}
    profile = ChainProfile([
        L(2 * i, 2 * i + 1, {2 * i: 192, 2 * i + 1: 192}, i == 0, True, dict(c), dict(c), forward_seconds=1.0)
        for i in range(5)
    ])
    for i, lp in enumerate(profile.layers[1:], 1):  # chain the boundary keys
        lp.input_key = profile.layers[i - 1].output_key
        lp.boundary_bytes = {lp.input_key: 192, lp.output_key: 192}
    _, every, peaks = check_against_brute_force(profile)
    check_plan_for_budget(profile)
    assert ck.plan_for_budget(profile, peaks[0]).predicted_peak_bytes == peaks[0]


def test_view_layers_do_not_double_count_a_held_boundary():
    """Regression: a plain view layer between a layer that saves its output and one that
    saves its input (the same buffer) used to make the DP count the buffer twice, so the
    all-plain plan was predicted at 960 B where the model (and the ledger) say 672 B."""
    L = LayerProfile
    profile = ChainProfile([
        L(0, 1, {0: 192, 1: 288}, True, False), L(1, 1, {1: 288}, False, False),
        L(1, 2, {1: 288, 2: 288}, False, True), L(2, 2, {2: 288}, False, False),
        L(2, 3, {2: 288, 3: 96}, True, False), L(3, 3, {3: 96}, False, False),
        L(3, 4, {3: 96, 4: 96}, True, False), L(4, 5, {4: 96, 5: 96}, False, False),
        L(5, 6, {5: 96, 6: 216}, True, False),
    ])
    for p in ck.pareto_plans(profile):
        assert p.predicted_peak_bytes == ck.simulate_peak(profile, p)
    plain = Plan(tuple(Block(i, i + 1, False) for i in range(9)))
    assert ck.simulate_peak(profile, plain) == 672
    check_against_brute_force(profile)


def test_local_and_general_paths_agree():
    """plan_for_budget and min_peak_bytes take a vectorized path on chains without view layers
    or shared constants; on such chains it must find what the general path finds."""
    rng = random.Random(5)
    checked = 0
    while checked < 60:
        profile = random_profile(rng, rng.randint(1, 9))
        local = model._LocalChain.of(profile)
        if local is None:
            continue
        checked += 1
        general = model._Transitions(profile, True, None)
        assert local.min_peaks()[0][0] == model._MinPeak(general)((0, frozenset()))
        every = ck.brute_force_plans(profile) if len(profile) <= 7 else None
        peaks = sorted({q.predicted_peak_bytes for q in every}) if every else [
            model._MinPeak(general)((0, frozenset()))]
        for budget in peaks[:6]:
            b1, c1 = model._budget_general(general, budget)
            b2, c2 = model._budget_local(local, budget)
            assert (b1 is None) == (b2 is None)
            if b1 is not None:
                assert cost_eq(c1, c2), (budget, b1, b2)
                assert ck.simulate_peak(profile, b2) <= budget


def long_chain(n, rng, view_every=0):
    """A long chain in the planner's model: two kinds of layer (one saves its input, one its
    output, as Linear and Tanh do), sizes and times varying, optionally a view layer now and then."""
    layers, key = [], 0
    for i in range(n):
        view = view_every and i % view_every == view_every - 1
        out = key if view else key + 1
        a, b = 64 * rng.randint(1, 4), 64 * rng.randint(1, 4)
        layers.append(LayerProfile(key, out, {key: a, out: a if view else b}, i % 2 == 0 and not view,
                                   i % 2 == 1 and not view, {(i, 0): 32} if i % 7 == 0 else {},
                                   forward_seconds=rng.uniform(1.0, 3.0)))
        key = out
    for prev, lp in zip(layers, layers[1:]):  # neighbours agree on the size of their boundary
        lp.boundary_bytes[lp.input_key] = prev.boundary_bytes[prev.output_key]
    return ChainProfile(layers)


def test_a_5000_layer_chain_is_planned():
    """Regression: the DP recursed once per layer (RecursionError from about 1,200 layers, and
    about 35 s for 900).  Now a loop; 5,000 layers under a budget plan in about a second."""
    profile = long_chain(5000, random.Random(0))
    smallest = ck.min_peak_bytes(profile)
    tight, loose = ck.plan_for_budget(profile, smallest), ck.plan_for_budget(profile, 3 * smallest // 2)
    for plan, budget in ((tight, smallest), (loose, 3 * smallest // 2)):
        assert plan.n_layers == 5000
        assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) <= budget
        assert cost_eq(plan.recompute_seconds, plan_cost(profile, plan.blocks))
    assert tight.predicted_peak_bytes == smallest
    # a looser budget never costs more recompute, and no uniform plan that fits is cheaper
    assert loose.recompute_seconds <= tight.recompute_seconds
    for k in (50, 70, 100, 140):
        uniform = ck.uniform_plan(5000, k)
        if ck.simulate_peak(profile, uniform) <= 3 * smallest // 2:
            assert loose.recompute_seconds <= plan_cost(profile, uniform.blocks) + 1e-9
    with pytest.raises(ck.InfeasibleBudgetError):
        ck.plan_for_budget(profile, smallest - 1)


def test_long_chains_with_views_plan_without_recursion():
    """The general path (view layers, shared constants) loops too: 1,500 layers, past the old
    recursion limit; pareto_plans and Revolve's table as well."""
    profile = long_chain(1500, random.Random(1), view_every=40)
    assert model._LocalChain.of(profile) is None
    smallest = ck.min_peak_bytes(profile)
    plan = ck.plan_for_budget(profile, smallest)
    assert plan.predicted_peak_bytes == ck.simulate_peak(profile, plan) == smallest
    uniform = uniform_profile(1500)
    frontier = ck.pareto_plans(uniform, allow_plain=False, max_block=6)
    assert all(p.predicted_peak_bytes == ck.simulate_peak(uniform, p) for p in frontier)
    assert min(p.predicted_peak_bytes for p in frontier) == research_min_peak([1] * 1501, max_block=6)
    assert ck.revolve_extra_forwards(1300, 2) == ck.revolve_closed_form(1300, 2)


# ----------------------------------------------------------------------------------------------
# Measured profiles of real layers
# ----------------------------------------------------------------------------------------------
class Reshape(nn.Module):
    def forward(self, h):
        return h.reshape(h.shape[0], -1)


class Residual(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, h):
        return h + mg.tanh(self.lin(h))


def random_chain(rng, n):
    """``n`` random layers starting with a Linear; returns them and the input width."""
    in_width, width = rng.randint(2, 24), rng.randint(2, 24)
    layers = [nn.Linear(in_width, width)]
    while len(layers) < n:
        kind = rng.choice(["linear", "linear", "tanh", "relu", "sigmoid", "dropout", "view", "norm", "res"])
        if kind == "linear":
            new = rng.randint(2, 24)
            layers.append(nn.Linear(width, new))
            width = new
        elif kind == "tanh":
            layers.append(nn.Tanh())
        elif kind == "relu":
            layers.append(nn.ReLU())
        elif kind == "sigmoid":
            layers.append(nn.Sigmoid())
        elif kind == "dropout":
            layers.append(nn.Dropout(0.3))
        elif kind == "view":
            layers.append(Reshape())
        elif kind == "norm":
            layers.append(nn.LayerNorm(width))
        else:
            layers.append(Residual(width))
    return layers, in_width


@pytest.mark.parametrize("seed", range(8))
def test_pareto_matches_brute_force_on_measured_chains(seed):
    rng = random.Random(seed)
    mg.manual_seed(seed)
    for _ in range(3):
        layers, in_width = random_chain(rng, rng.randint(1, 7))
        x = mg.randn(rng.randint(2, 6), in_width, requires_grad=rng.random() < 0.3)
        profile = ck.profile_chain(layers, x)
        assert len(profile) == len(layers)
        assert all(lp.forward_seconds > 0 for lp in profile.layers)
        check_against_brute_force(profile)
        check_plan_for_budget(profile)


def test_profile_leaves_no_trace():
    mg.manual_seed(0)
    layers = [nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Dropout(0.5), nn.Linear(6, 2)]
    x = mg.randn(5, 4)
    rng = mg.get_rng_state()
    bn = [b.numpy().copy() for b in layers[1].buffers()]
    ck.profile_chain(layers, x)
    assert mg.get_rng_state() == rng
    for a, b in zip(bn, layers[1].buffers()):
        assert a.tobytes() == b.numpy().tobytes(), "profiling changed BatchNorm's running statistics"


def test_profile_leaves_batch_norm_alone_wherever_it_sits():
    """A layer that is a plain function around a BatchNorm (it has no buffers to ask for),
    and batch_norm called with running statistics of one's own: profiling puts them back."""
    mg.manual_seed(0)
    bn = nn.BatchNorm1d(6)
    mean, var = mg.zeros(6), mg.ones(6)
    layers = [nn.Linear(4, 6), lambda h: bn(h), lambda h: F.batch_norm(h, mean, var, training=True)]
    x = mg.randn(5, 4)
    state = [t.numpy().tobytes() for t in (*bn.buffers(), mean, var)]
    ck.profile_chain(layers, x, repeats=2)
    assert [t.numpy().tobytes() for t in (*bn.buffers(), mean, var)] == state


def test_profile_sizes_are_exact():
    mg.manual_seed(0)
    layers = [nn.Linear(4, 6, dtype="float64"), nn.Tanh(), nn.Linear(6, 3, dtype="float64")]
    x = mg.randn(5, 4, dtype="float64")
    prof = ck.profile_chain(layers, x)
    lin1, tanh, lin2 = prof.layers
    assert lin1.saves_input and not lin1.saves_output and lin1.boundary_bytes[lin1.input_key] == 5 * 4 * 8
    assert tanh.saves_output and not tanh.saves_input and tanh.boundary_bytes[tanh.output_key] == 5 * 6 * 8
    assert lin2.saves_input and lin2.input_key == tanh.output_key
    assert not lin1.local_saved and not tanh.local_saved and not lin2.local_saved
    # a parameter-like input (a leaf that requires grad) is not activation memory
    x.requires_grad = True
    lin1 = ck.profile_chain(layers, x).layers[0]
    assert lin1.boundary_bytes[lin1.input_key] == 0 and not lin1.saves_input


# ----------------------------------------------------------------------------------------------
# 4.1(B): the uniform chain and the research's suffix DP
# ----------------------------------------------------------------------------------------------
def uniform_profile(n):
    """Every layer saves only its 1-byte output; no local arrays.  In the research's notation
    a_i = r_i = 1: a checkpointed block [s..e] keeps its input a_{s-1} and, replayed,
    holds R(s..e) = e - s + 1 outputs."""
    return ChainProfile([LayerProfile(i, i + 1, {i: 1, i + 1: 1}, False, True, forward_seconds=1.0)
                         for i in range(n)])


def research_min_peak(a, max_block=None):
    """Research 4.1(B): G[s] = min_e a_{s-1} + max(R(s..e), G[e+1]) with r_i = a_i (outputs)."""
    n = len(a) - 1
    prefix = [0] * (n + 1)
    for i in range(1, n + 1):
        prefix[i] = prefix[i - 1] + a[i]
    g = [0] * (n + 2)
    for s in range(n, 0, -1):
        last = n if max_block is None else min(n, s + max_block - 1)
        g[s] = min(a[s - 1] + max(prefix[e] - prefix[s - 1], g[e + 1]) for e in range(s, last + 1))
    return g[1]


@pytest.mark.parametrize("n,peak", [(16, 7), (100, 15)])
def test_uniform_chain_oracle(n, peak):
    frontier = ck.pareto_plans(uniform_profile(n), allow_plain=False)
    best = min(frontier, key=lambda p: p.predicted_peak_bytes)
    assert best.predicted_peak_bytes == peak
    assert ck.simulate_peak(uniform_profile(n), best) == peak
    assert research_min_peak([1] * (n + 1)) == peak


def test_uniform_chain_research_dp_n1000():
    assert research_min_peak([1] * 1001) == 46


@pytest.mark.parametrize("n,peak", [(16, 8), (100, 20)])
def test_best_equal_length_split(n, peak):
    """Equal-length segments (what checkpoint_sequential makes) are worse than the optimum."""
    prof = uniform_profile(n)
    best = min(ck.simulate_peak(prof, ck.uniform_plan(n, k, checkpoint_last=True)) for k in range(1, n + 1))
    assert best == peak


def test_research_dp_equals_planner_on_heterogeneous_output_only_chains():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 12)
        a = [rng.randint(1, 50) for _ in range(n + 1)]
        prof = ChainProfile([LayerProfile(i, i + 1, {i: a[i], i + 1: a[i + 1]}, False, True,
                                          forward_seconds=1.0) for i in range(n)])
        got = min(p.predicted_peak_bytes for p in ck.pareto_plans(prof, allow_plain=False))
        assert got == research_min_peak(a)
        if n <= 7:
            assert got == min(q.predicted_peak_bytes for q in ck.brute_force_plans(prof, allow_plain=False))


# ----------------------------------------------------------------------------------------------
# 4.1(A): Revolve
# ----------------------------------------------------------------------------------------------
def test_revolve_recursion_equals_closed_form():
    for n in range(1, 60):
        for s in range(1, 7):
            assert ck.revolve_extra_forwards(n, s) == ck.revolve_closed_form(n, s), (n, s)


@pytest.mark.parametrize("s,values", [
    (2, [1, 2, 4, 6, 8, 11, 14, 17, 20, 24, 28]),
    (3, [1, 2, 3, 5, 7, 9, 11, 13, 15, 18, 21]),
])
def test_revolve_oracle_small(s, values):
    assert [ck.revolve_extra_forwards(n, s) for n in range(2, 13)] == values
    assert [ck.revolve_closed_form(n, s) for n in range(2, 13)] == values


@pytest.mark.parametrize("s,value", [(2, 845), (3, 490), (4, 374), (10, 222)])
def test_revolve_oracle_n100(s, value):
    assert ck.revolve_extra_forwards(100, s) == value
    assert ck.revolve_closed_form(100, s) == value


def test_revolve_edge_cases():
    assert ck.revolve_extra_forwards(1, 1) == 0
    assert ck.revolve_extra_forwards(5, 1) == 10  # n(n-1)/2 with one snapshot
    for n in range(2, 20):
        assert ck.revolve_extra_forwards(n, n - 1) == n - 1  # one recompute per step
    for bad in [(0, 1), (3, 0)]:
        with pytest.raises(ValueError):
            ck.revolve_extra_forwards(*bad)
        with pytest.raises(ValueError):
            ck.revolve_closed_form(*bad)


def test_profiling_a_chain_whose_layer_returns_a_tuple_names_the_layer():
    """A layer that hands the next one a tuple (a residual block cut in two halves) runs under
    run_plan, but the chain's cost model has one array per boundary: a TypeError naming the layer,
    not an AttributeError from inside the profiler."""
    import minigrad_ckpt as mg
    from minigrad_ckpt import checkpoint as ck
    from minigrad_ckpt import nn

    class Split(nn.Module):
        def forward(self, x):
            return x, x * 2

    class Join(nn.Module):
        def forward(self, pair):
            return pair[0] + pair[1]

    layers = [nn.Linear(3, 3), Split(), Join()]
    x = mg.randn(2, 3)
    assert ck.run_plan(layers, ck.EveryNLayers(1).plan(3), x).shape == (2, 3)
    with pytest.raises(TypeError, match=r"layer 1 \(Split\) returned a tuple"):
        ck.profile_chain(layers, x)
