"""Checkpoint policies, CheckpointingConfig and CheckpointStatistics: each field does what it says."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint.planner import Block, Plan
from minigrad_ckpt.grad_mode import state as grad_state


@pytest.fixture(autouse=True)
def _fresh_statistics():
    ck.reset_statistics()
    yield
    ck.reset_statistics()
    assert grad_state.recorder is None


def chain(n_pairs=4, dtype="float64", seed=0):
    mg.manual_seed(seed)
    widths = [5, 9, 4, 11, 6, 8, 3, 7, 5][: n_pairs + 1]
    layers = []
    for a, b in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(a, b, dtype=dtype), nn.Tanh()]
    return layers


def params(layers):
    return [p for layer in layers for p in layer.parameters()]


def grads_of(layers, x, plan_or_policy):
    for p in params(layers):
        p.grad = None
    if isinstance(plan_or_policy, Plan):
        out = ck.run_plan(layers, plan_or_policy, x)
    else:
        out = ck.checkpoint_sequential(layers, plan_or_policy, x)
    (out ** 2).sum().backward()
    return [p.grad.numpy().copy() for p in params(layers)]


def covers(plan, n):
    assert plan.blocks[0].start == 0 and plan.n_layers == n
    for a, b in zip(plan.blocks[:-1], plan.blocks[1:]):
        assert a.stop == b.start and a.stop > a.start


# ----------------------------------------------------------------------------------------------
# Policies
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1, -7, 1.5, 2.0, "2", None, True, False])
def test_every_n_layers_rejects_non_positive_and_non_int(bad):
    with pytest.raises(ValueError, match="EveryNLayers"):
        ck.EveryNLayers(bad)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 20])
def test_every_n_layers_plan(n):
    plan = ck.EveryNLayers(n).plan(8)
    covers(plan, 8)
    starts = [s for s, _ in plan.segments]
    assert starts == [s for s in range(0, 8, n)][: len(starts)]
    # the last block is never checkpointed, every other block starts every n layers
    assert not plan.blocks[-1].checkpointed
    assert all(e - s == n for s, e in plan.segments)


def test_custom_calls_the_predicate_and_uses_its_answers():
    calls = []

    def pred(i, n):
        calls.append((i, n))
        return i in (0, 3, 5)

    policy = ck.Custom(pred)
    plan = policy.plan(8)
    assert sorted(calls) == [(i, 8) for i in range(8)]
    covers(plan, 8)
    assert plan.segments == [(0, 3), (3, 5)]
    assert [b.checkpointed for b in plan.blocks] == [True, True, False, False, False]
    # and it is used for real: gradients exact, predicate called again on a new chain length
    layers = chain(4)
    x = mg.randn(3, 5, dtype="float64")
    calls.clear()
    got = grads_of(layers, x, policy)
    assert len(calls) == 8
    assert ck.statistics().forward_passes == 2
    want = grads_of(layers, x, ck.NoCheckpointing())
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()


def test_custom_needs_a_callable():
    with pytest.raises(TypeError):
        ck.Custom(3)


def test_custom_predicate_that_is_never_true_checkpoints_nothing():
    plan = ck.Custom(lambda i, n: False).plan(6)
    # layer 0's input is always a block start; with no other start, the one block is plain
    assert plan.segments == []


@pytest.mark.parametrize("layers", [[8], [3, 9], [100]])
def test_specific_layers_out_of_range(layers):
    policy = ck.SpecificLayers(layers)
    with pytest.raises(ValueError, match=r"do not exist in a chain of 8 layers"):
        policy.plan(8)
    with pytest.raises(ValueError, match="do not exist"):
        ck.checkpoint_sequential(chain(4), policy, mg.randn(2, 5, dtype="float64"))


def test_specific_layers_negative_is_an_error():
    with pytest.raises(ValueError, match=">= 0"):
        ck.SpecificLayers([2, -1])


def test_specific_layers_plan():
    plan = ck.SpecificLayers([5, 2, 2]).plan(8)
    covers(plan, 8)
    assert plan.segments == [(0, 2), (2, 5)]


@pytest.mark.parametrize("n", [1, 2, 4, 9, 16, 17, 100])
def test_sqrt_plan(n):
    plan = ck.Sqrt().plan(n)
    covers(plan, n)
    k = max(1, round(np.sqrt(n)))
    assert len(plan.segments) <= k
    if n >= 4:
        assert len(plan.segments) == k - 1  # sqrt(n) blocks, the last one plain


def test_none_policy_and_alias():
    none = getattr(ck.CheckpointPolicy, "None")
    assert none is ck.NoCheckpointing
    plan = none().plan(5)
    assert plan.segments == [] and plan.n_layers == 5
    assert ck.CheckpointingConfig(None).policy == ck.NoCheckpointing()


def test_optimal_needs_a_profile_and_a_valid_budget():
    with pytest.raises(ValueError, match="non-negative"):
        ck.Optimal(-1)
    with pytest.raises(ValueError, match="profile"):
        ck.Optimal(100).plan(4)
    layers = chain(2)
    x = mg.randn(3, 5, dtype="float64")
    prof = ck.profile_chain(layers, x)
    with pytest.raises(ValueError, match="layers"):
        ck.Optimal(10**6).plan(3, prof)
    with pytest.raises(ck.InfeasibleBudgetError):
        ck.checkpoint_sequential(layers, ck.Optimal(1), x)


def test_automatic_is_optimal_under_its_budget():
    layers = chain(4)
    x = mg.randn(3, 5, dtype="float64")
    prof = ck.profile_chain(layers, x)
    for p in ck.pareto_plans(prof):
        a = ck.Automatic(p.predicted_peak_bytes).plan(len(layers), prof)
        o = ck.Optimal(p.predicted_peak_bytes).plan(len(layers), prof)
        assert a.blocks == o.blocks
        assert a.predicted_peak_bytes <= p.predicted_peak_bytes


# ----------------------------------------------------------------------------------------------
# CheckpointingConfig
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", [ck.EveryNLayers(1), ck.EveryNLayers(2), ck.Sqrt(), ck.SpecificLayers([1, 2, 4, 6])])
@pytest.mark.parametrize("max_checkpoints", [1, 2, 3])
def test_max_checkpoints_merges_blocks_and_loses_nothing(policy, max_checkpoints):
    layers = chain(4)
    x = mg.randn(3, 5, dtype="float64")
    config = ck.CheckpointingConfig(policy, max_checkpoints=max_checkpoints, enable_statistics=True)
    plan = ck.plan_chain(layers, x, config)
    unlimited = ck.plan_chain(layers, x, policy)
    covers(plan, len(layers))
    assert len(plan.segments) == min(max_checkpoints, len(unlimited.segments))
    # merging only joins blocks: every original boundary that survives is an original one
    original = {b.start for b in unlimited.blocks}
    assert {s for s, _ in plan.segments} <= original
    # the merged blocks still cover every layer that was checkpointed
    ck_layers = {i for s, e in unlimited.segments for i in range(s, e)}
    assert ck_layers <= {i for s, e in plan.segments for i in range(s, e)}
    got = grads_of(layers, x, plan)
    want = grads_of(layers, x, ck.NoCheckpointing())
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()
    assert ck.statistics().recompute_count == len(plan.segments)


def test_max_checkpoints_must_be_positive():
    with pytest.raises(ValueError, match="max_checkpoints"):
        ck.CheckpointingConfig(ck.Sqrt(), max_checkpoints=0)


def test_config_policy_type_is_checked():
    with pytest.raises(TypeError, match="CheckpointPolicy"):
        ck.CheckpointingConfig("sqrt")


def test_recompute_on_backward_false_disables_dropping():
    mg.manual_seed(0)
    model = nn.Sequential(*chain(4))
    x = mg.randn(3, 5, dtype="float64")
    config = ck.CheckpointingConfig(ck.EveryNLayers(1), recompute_on_backward=False, enable_statistics=True)
    model.enable_checkpointing(config)
    with mg.memory.track() as ledger:
        out = model(x)
        after_forward = ledger.live("saved")
        (out ** 2).sum().backward()
    assert ck.last_plan(model).segments == []
    assert config.statistics.forward_passes == 0 and ck.statistics().recompute_count == 0
    got = [p.grad.numpy().copy() for p in model.parameters()]
    model.enable_checkpointing(None)
    model.zero_grad()
    with mg.memory.track() as ledger:
        out = model(x)
        assert ledger.live("saved") == after_forward
        (out ** 2).sum().backward()
    for a, p in zip(got, model.parameters()):
        assert a.tobytes() == p.grad.numpy().tobytes()


def test_enable_checkpointing_caches_one_plan_per_input_shape():
    layers = chain(3)
    model = nn.Sequential(*layers)
    config = ck.CheckpointingConfig(ck.Optimal(None))
    model.enable_checkpointing(config)
    model(mg.randn(3, 5, dtype="float64"))
    model(mg.randn(3, 5, dtype="float64"))
    assert len(config._plans) == 1
    model(mg.randn(7, 5, dtype="float64"))
    assert len(config._plans) == 2
    with pytest.raises(TypeError):
        ck.enable_checkpointing(object(), ck.Sqrt())


def test_char_transformer_enable_checkpointing_is_exact():
    from minigrad_ckpt.demo import CharTransformer

    kwargs = dict(vocab_size=11, block_size=8, d_model=16, n_heads=2, n_layers=3, dropout=0.1)
    ids = mg.tensor(np.arange(2 * 8).reshape(2, 8) % 11)

    def run(config):
        mg.manual_seed(0)
        model = CharTransformer(**kwargs)
        if config is not None:
            model.enable_checkpointing(config)
        mg.manual_seed(1)
        out = model(ids)
        (out * out).mean().backward()
        return [out.numpy().copy()] + [p.grad.numpy().copy() for p in model.parameters()], mg.get_rng_state()

    want, rng_want = run(None)
    got, rng_got = run(ck.CheckpointingConfig(ck.EveryNLayers(1)))
    assert rng_got == rng_want
    assert ck.statistics().recompute_count == 2  # three blocks, the last one plain
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()


# ----------------------------------------------------------------------------------------------
# Statistics are measured
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics_of_one_segment_by_hand(dtype):
    """Linear(4, 8) -> Tanh -> Linear(8, 3) -> Tanh on a (5, 4) input that needs no grad,
    followed by a consumer that saves the result (``out * out``).

    Without checkpointing the tape keeps x (Linear 1 saves its input), h1 = tanh(.)
    (saved by Tanh 1 as its output *and* by Linear 2 as its input: one buffer) and
    h2 (Tanh 2's output, also saved by the consumer): 5*4 + 5*8 + 5*3 = 75 elements.
    The segment keeps x only, and its result h2 is kept by the consumer either way,
    so it saves h1: 5*8 = 40 elements.  A segment's own result never counts as
    saved (whoever uses it decides whether it is kept); parameters never count.
    """
    item = np.dtype(dtype).itemsize
    mg.manual_seed(0)
    layers = [nn.Linear(4, 8, dtype=dtype), nn.Tanh(), nn.Linear(8, 3, dtype=dtype), nn.Tanh()]
    x = mg.randn(5, 4, dtype=dtype)

    def run(h):
        for f in layers:
            h = f(h)
        return h

    with mg.memory.track() as ledger:
        plain = run(x)
        plain * plain
        plain_live = ledger.live("saved")
    assert plain_live == 75 * item
    stats = ck.statistics()
    with mg.memory.track() as ledger:
        out = ck.checkpoint(run, x)
        sq = out * out
        ckpt_live = ledger.live("saved")
        assert stats.active_checkpoints == 1
        assert stats.forward_passes == 1 and stats.backward_passes == 0 and stats.recompute_count == 0
        sq.sum().backward()
    assert ckpt_live == 35 * item
    assert stats.memory_saved_bytes == 40 * item == plain_live - ckpt_live
    assert stats.memory_saved_mb() == pytest.approx(40 * item / 2**20)
    assert stats.forward_passes == 1 and stats.backward_passes == 1 and stats.recompute_count == 1
    assert stats.active_checkpoints == 0
    assert stats.avg_recomputations() == 1.0
    assert stats.forward_time_us > 0 and stats.additional_compute_time_us > 0
    assert stats.compute_overhead_percent() > 0
    d = stats.as_dict()
    assert d["memory_saved_bytes"] == 40 * item and d["avg_recomputations"] == 1.0
    seg = out._node.segment
    assert (seg.dropped_bytes, seg.kept_bytes) == (60 * item, 20 * item)  # x and h1; h2 is the result


def test_statistics_counters_over_steps_and_config_statistics():
    # (segments of three layers, [Linear, Tanh, Linear] or [Tanh, Linear, Tanh], each drop an
    # activation inside them; two-layer segments would drop only their own result: no saving)
    layers = chain(6)
    x = mg.randn(3, 5, dtype="float64")
    config = ck.CheckpointingConfig(ck.EveryNLayers(3), enable_statistics=True)
    for step in range(1, 4):
        out = ck.checkpoint_sequential(layers, ck.EveryNLayers(3), x, config=config)
        assert config.statistics.active_checkpoints == 3
        (out ** 2).sum().backward()
        for s in (config.statistics, ck.statistics()):
            assert s.forward_passes == 3 * step
            assert s.backward_passes == 3 * step
            assert s.recompute_count == 3 * step
            assert s.active_checkpoints == 0
            assert s.avg_recomputations() == 1.0
            assert s.memory_saved_bytes > 0
    config.statistics.reset()
    assert config.statistics.as_dict()["forward_passes"] == 0
    assert ck.statistics().forward_passes == 9


def test_statistics_without_any_segment():
    s = ck.CheckpointStatistics()
    assert s.avg_recomputations() == 0.0 and s.compute_overhead_percent() == 0.0 and s.memory_saved_mb() == 0.0


@pytest.mark.parametrize("policy", [ck.EveryNLayers(2)])
def test_statistics_memory_saved_matches_the_ledger_for_several_segments(policy):
    mg.manual_seed(0)
    layers = [nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6), nn.Tanh(), nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 3)]
    x = mg.randn(5, 4)
    # (_graph: each forward's output is held while the ledger is read: a dropped graph leaves the ledger)
    with mg.memory.track() as ledger:
        _graph = ck.run_plan(layers, Plan((Block(0, len(layers), False),)), x)
        plain = ledger.live("saved")
    with mg.memory.track() as ledger:
        _graph = ck.run_plan(layers, ck.plan_chain(layers, x, policy), x)
        ckpt = ledger.live("saved")
    assert ck.statistics().memory_saved_bytes == plain - ckpt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_segment_input_the_tape_holds_anyway_costs_nothing_in_the_statistics(dtype):
    # A plain Linear+Tanh, then a checkpointed batch norm in eval mode, whose ops do not save
    # their input: the segment keeps the tanh's output, which the tanh saves anyway. The
    # statistics counted it as kept (-24 bytes saved for float32, where the ledger holds 72
    # less) and warned that the segment costs memory.
    mg.manual_seed(0)
    layers = [nn.Sequential(nn.Linear(6, 6), nn.Tanh()), nn.BatchNorm1d(6).eval()]
    for layer in layers:
        layer.to(dtype)
    x = mg.randn(4, 6, requires_grad=True, dtype=dtype)
    with mg.memory.track() as ledger:
        _graph = ck.run_plan(layers, Plan((Block(0, 2, False),)), x)
        plain = ledger.live("saved")
    ck.reset_statistics()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ck.CheckpointCostWarning)
        with mg.memory.track() as ledger:
            _graph = ck.run_plan(layers, Plan((Block(0, 1, False), Block(1, 2, True))), x)
            ckpt = ledger.live("saved")
    assert ck.statistics().memory_saved_bytes == plain - ckpt > 0
    assert ck.statistics().costly_segments == []


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_statistics_of_nested_blocks_count_each_buffer_once_as_the_ledger_does(mode):
    # One checkpointed block around the chain, with a Linear+Tanh block nested in it. eval: the
    # nested block's result (the tanh's output) is read by the batch norm of the outer block,
    # which replays it -- dropped, but the statistics left it out as the nested block's result
    # (72 bytes saved reported, where the ledger holds 168 less). train: the batch norm saves
    # the tanh's output too, and each block counted it (192 reported, 96 in the ledger).
    mg.manual_seed(0)
    norm = nn.BatchNorm1d(6)
    layers = [nn.Sequential(nn.Linear(6, 6), nn.Tanh()), norm.eval() if mode == "eval" else norm]
    x = mg.randn(4, 6, requires_grad=True)
    inner = (Block(0, 1, True), Block(1, 2, False)) if mode == "eval" else (Block(0, 1, False), Block(1, 2, True))
    with mg.memory.track() as ledger:
        _graph = ck.run_plan(layers, Plan((Block(0, 2, False),)), x)
        plain = ledger.live("saved")
    ck.reset_statistics()
    with mg.memory.track() as ledger:
        _graph = ck.run_plan(layers, Plan((Block(0, 2, True, inner),)), x)
        ckpt = ledger.live("saved")
    assert ck.statistics().memory_saved_bytes == plain - ckpt


@pytest.mark.parametrize("budget", [float("nan"), float("inf"), "1000", None, True])
def test_a_budget_that_is_not_a_number_of_bytes_is_a_clear_error(budget):
    # NaN gave "cannot convert float NaN to integer", Optimal("1000") "'<' not supported between
    # 'str' and 'int'", plan_for_budget(profile, "1000") a plan for 1,000 bytes
    layers = [nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4)]
    x = mg.randn(2, 4, requires_grad=True)
    profile = ck.profile_chain(layers, x)
    calls = {"Optimal": lambda: ck.Optimal(budget), "plan_for_budget": lambda: ck.plan_for_budget(profile, budget),
             "plan_graph": lambda: ck.plan_graph(lambda t: mg.tanh(t), x, budget_bytes=budget)}
    if budget is None:
        del calls["Optimal"]  # Optimal(None): the smallest peak there is
    for who, call in calls.items():
        with pytest.raises((TypeError, ValueError), match=f"{who}: the budget is a number of bytes"):
            call()


def _ledger_and_statistics_agree(program):
    """Run ``program(checkpointed)`` plainly and checkpointed, each output held while the ledger is
    read; the statistics of the second must be what the ledger holds less. Returns both readings."""
    with mg.memory.track() as ledger:
        _graph = program(False)
        plain = ledger.live("saved")
    ck.reset_statistics()
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        _graph = program(True)
        held = ledger.live("saved")
    assert ck.statistics().memory_saved_bytes == plain - held
    return plain, held


_VIEWS_ONLY = {
    "view-transpose": lambda t: t.view(6, 4).transpose(0, 1),
    "slice": lambda t: t[1:3],
    "reshape-T": lambda t: t.reshape(6, 4).T,
}
_AFTER = {  # what the program does with the segment's result after it
    "saves it": lambda y: y * y,                 # a product saves both factors: the kept memory
    "reads it only": lambda y: (y + 1.0).sum(),  # nothing saved
    "saves the input": None,                     # the segment's input, read again and saved
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("after", sorted(_AFTER))
@pytest.mark.parametrize("views", sorted(_VIEWS_ONLY))
def test_statistics_of_a_segment_of_views_equal_the_ledger_whatever_comes_after_it(views, after, dtype):
    # A segment of views keeps its input and drops nothing. Its result views the kept memory: an op
    # after the segment that saves the result holds that memory anyway, in both runs, and keeping it
    # costs nothing -- the statistics said -96 bytes (float32) where the ledger measured 0.
    def program(checkpointed):
        mg.manual_seed(0)
        h = mg.randn(4, 6, requires_grad=True, dtype=dtype) * 2.0  # an intermediate: kept
        fn = _VIEWS_ONLY[views]
        y = ck.checkpoint(fn, h) if checkpointed else fn(h)
        return (h * h, y) if _AFTER[after] is None else _AFTER[after](y)

    plain, held = _ledger_and_statistics_agree(program)
    assert held - plain == (4 * 6 * np.dtype(dtype).itemsize if after == "reads it only" else 0)


def test_statistics_stop_following_the_tape_when_backward_begins():
    # ops recorded by a create_graph backward (or any later forward pass) are not the end of
    # this forward pass: a view of the kept input saved there does not change the statistics
    h = mg.randn(4, 6, requires_grad=True) * 2.0
    ck.reset_statistics()
    with warnings.catch_warnings(), mg.memory.track():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        y = ck.checkpoint(lambda t: t.T, h)
        before = ck.statistics().memory_saved_bytes
        (y.sum() * 1.0).backward(create_graph=True)
        _later = y * y
    assert ck.statistics().memory_saved_bytes == before == -96


def test_the_tape_stops_calling_the_statistics_hook_once_the_segment_let_go():
    # a checkpointed forward pass under grad mode whose graph is dropped (an evaluation without
    # no_grad): the ops after it must not keep paying a call each
    import gc

    from minigrad_ckpt import tape

    h = mg.randn(4, 6, requires_grad=True) * 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        y = ck.checkpoint(lambda t: t.T, h)
        assert tape._after_segment is None  # the ledger is off: the statistics are the segment's own
        with mg.memory.track():
            y = ck.checkpoint(lambda t: t.T, h)
            assert tape._after_segment is not None
            del y
            gc.collect()
            assert tape._after_segment is None


_SEGMENTS = {  # (a segment, whose last op saves its output; ``cp`` checkpoints or just calls)
    "tanh": lambda t, cp: mg.tanh(t.view(6, 4).transpose(0, 1)),
    "exp": lambda t, cp: mg.exp(t.reshape(24)),
    "two segments": lambda t, cp: cp(mg.tanh, cp(lambda u: mg.exp(u) * 2.0, t)),
    "nested": lambda t, cp: cp(lambda u: mg.tanh(cp(mg.exp, u * 1.0)), t),
}
_RESULT_AFTER = {
    "nothing": lambda y: y,
    "sum": lambda y: y.sum(),
    "tanh": mg.tanh,
    "product": lambda y: y * y,  # saves the result: it counts neither way
}


@pytest.mark.parametrize("after", sorted(_RESULT_AFTER))
@pytest.mark.parametrize("segment", sorted(_SEGMENTS))
@pytest.mark.parametrize("made", ["leaf", "intermediate"])
def test_statistics_of_a_result_its_op_saves_equal_the_ledger_whatever_comes_after_it(made, segment, after):
    # A plain run's tape holds the tanh's output; a checkpointed one does not. The statistics left
    # the result out, supposing the op after the segment saves it (a product does); after a sum, a
    # tanh or nothing they said 96 bytes (float32) too few.
    def program(checkpointed):
        mg.manual_seed(0)
        h = mg.randn(4, 6, requires_grad=True, dtype="float32")
        h = h if made == "leaf" else h * 2.0
        cp = ck.checkpoint if checkpointed else (lambda f, *args: f(*args))
        return _RESULT_AFTER[after](cp(_SEGMENTS[segment], h, cp))

    _ledger_and_statistics_agree(program)
