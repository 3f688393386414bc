"""Bad inputs to plans, policies and Revolve are clear errors; good ones of other spellings work.

Before: ``Block(0.5, 2, True)`` and ``Block("0", "2", True)`` were taken (and failed later, or
planned the wrong layers), ``Block(0, 2, "yes")`` too; inner blocks given as a list made an
unhashable frozen Block, and non-Blocks an ``AttributeError``; ``Plan([...])`` kept the list and
its ``describe()`` raised ``TypeError: can only concatenate list``; ``run_plan`` refused the list
of blocks ``simulate_peak`` takes (``AttributeError``); ``recomputed_layers`` counted a plan for
a chain of another length without a word (``simulate_peak`` refuses it); ``EveryNLayers(np.int64(2))``
was refused as not "a positive integer"; ``SpecificLayers("12")`` planned layers 1 and 2 and
``SpecificLayers([1.7])`` layer 1; ``uniform_plan(4, -2)`` planned, and an empty ``Sequential`` with
``Sqrt()`` or no checkpointing raised ``range() arg 3 must not be zero`` (PyTorch's empty
``Sequential`` is the identity); ``revolve_extra_forwards(True, True)`` answered 0 and a string
``'<' not supported``; ``remat(3)`` gave a function that failed only when called.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import Block, Plan


@pytest.mark.parametrize("start, stop", [(0.5, 2), ("0", "2"), (True, 2), (0, 2.0)])
def test_a_block_is_made_of_layer_indices(start, stop):
    with pytest.raises(TypeError, match="layer index"):
        Block(start, stop, True)


def test_a_block_says_whether_it_is_checkpointed_with_a_bool():
    with pytest.raises(TypeError, match="checkpointed is True or False"):
        Block(0, 2, "yes")
    b = Block(np.int64(0), np.int64(2), np.True_)
    assert (type(b.start), type(b.stop), b.checkpointed is True) == (int, int, True)


def test_inner_blocks_are_blocks_and_a_list_of_them_is_taken():
    with pytest.raises(TypeError, match=r"inner blocks of Block\(0, 2\) are a sequence of Block, got tuple"):
        Block(0, 2, True, ((0, 1), (1, 2)))
    b = Block(0, 2, True, [Block(0, 1, True), Block(1, 2, False)])
    assert b.blocks == (Block(0, 1, True), Block(1, 2, False))
    hash(b)  # a frozen block is hashable


def test_a_plan_takes_a_list_of_blocks_and_refuses_anything_else():
    plan = Plan([Block(0, 2, True), Block(2, 3, False)])
    assert plan.blocks == (Block(0, 2, True), Block(2, 3, False))
    assert "[0:2]* [2:3]" in plan.describe()
    with pytest.raises(TypeError, match="a plan's blocks are a sequence of Block, got str"):
        Plan(("a",))
    with pytest.raises(TypeError, match="a plan's blocks are a sequence of Block"):
        Plan(3)


def test_run_plan_takes_the_blocks_simulate_peak_takes():
    mg.manual_seed(0)
    layers = [nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4)]
    x = mg.randn(2, 4)
    blocks = [Block(0, 2, True), Block(2, 3, False)]
    profile = ck.profile_chain(layers, x)
    with mg.memory.track() as ledger:
        y = ck.run_plan(layers, blocks, x)
        y.sum().backward()
    assert ledger.peak("saved") == ck.simulate_peak(profile, blocks)
    np.testing.assert_array_equal(y.detach().numpy(), layers[2](layers[1](layers[0](x))).detach().numpy())


def test_recomputed_layers_refuses_a_plan_for_another_chain():
    mg.manual_seed(0)
    layers = [nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh()]
    profile = ck.profile_chain(layers, mg.randn(2, 4))
    with pytest.raises(ValueError, match="covers 3 layers, but there are 4"):
        ck.recomputed_layers(profile, [Block(0, 2, True), Block(2, 3, False)])
    # (the replay skips the tanh, whose output the block keeps, and the linear only the tanh reads;
    # of [0:3]* it runs the first two: the last linear saves the tanh's output, its input)
    assert ck.recomputed_layers(profile, [Block(0, 2, True), Block(2, 4, False)]) == 0
    assert ck.recomputed_layers(profile, [Block(0, 3, True), Block(3, 4, False)]) == 2


def test_policies_take_numpy_integers_and_refuse_what_is_not_a_layer_index():
    assert ck.EveryNLayers(np.int64(2)).plan(4).segments == [(0, 2)]
    assert ck.SpecificLayers(np.array([2])).plan(4).segments == [(0, 2)]
    with pytest.raises(TypeError, match="sequence of layer indices, got str"):
        ck.SpecificLayers("12")
    with pytest.raises(TypeError, match="layer index"):
        ck.SpecificLayers([1.7])


def test_uniform_plan_refuses_a_segment_count_below_one():
    with pytest.raises(ValueError, match="n_segments >= 1"):
        ck.uniform_plan(4, -2)
    with pytest.raises(ValueError, match="n_segments >= 1"):
        ck.uniform_plan(4, 0)
    assert ck.uniform_plan(0, 3).blocks == ()


@pytest.mark.parametrize("policy", [ck.Sqrt(), ck.NoCheckpointing(), ck.EveryNLayers(2), ck.Optimal(None)],
                         ids=repr)
def test_an_empty_sequential_with_checkpointing_is_the_identity(policy):
    model = nn.Sequential()
    model.enable_checkpointing(ck.CheckpointingConfig(policy))
    x = mg.randn(3, requires_grad=True)
    (model(x * 2.0) * 1.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("n, s", [(True, True), (10.0, 2), (10, 2.5), ("10", 2)])
def test_revolve_counts_in_whole_numbers(n, s):
    for count in (ck.revolve_extra_forwards, ck.revolve_closed_form):
        with pytest.raises(TypeError, match="whole numbers"):
            count(n, s)
    assert ck.revolve_extra_forwards(np.int64(10), np.int64(2)) == ck.revolve_closed_form(10, 2)


def test_remat_needs_a_function():
    with pytest.raises(TypeError, match="remat needs a function to run, got int"):
        ck.remat(3)


def test_an_infeasible_budget_error_pickles_and_copies():
    # pickle.dumps/loads and copy.deepcopy raised "__init__() missing 1 required positional
    # argument: 'smallest'" -- what a worker process raising it (multiprocessing, a DataLoader's
    # worker, a distributed rank) sends back
    import copy
    import pickle

    mg.manual_seed(0)
    layers = [nn.Linear(4, 4), nn.Tanh()]
    with pytest.raises(ck.InfeasibleBudgetError) as info:
        ck.plan_for_budget(ck.profile_chain(layers, mg.randn(2, 4)), 1)
    for again in (pickle.loads(pickle.dumps(info.value)), copy.deepcopy(info.value)):
        assert type(again) is ck.InfeasibleBudgetError and str(again) == str(info.value)
        assert (again.budget, again.smallest_feasible_bytes) == (1, info.value.smallest_feasible_bytes)
