"""The cost model counts the layer forwards the engine's replays actually run, for every nested plan.

A replay runs a layer only if something reads its output (a layer that runs, one that saves
its input, a nested segment replaying from it) or it saves arrays it computes itself; so a
block ending in a layer the replay skips skips, too, the layers only that one reads.  The
model charged them: ``[Linear, Tanh] * 3`` under ``[0:4] [4:6]*`` predicted one recomputed
layer where the engine replays none (14,624 of its 25,216 nested plans disagreed), and the
planners chose among plans by those costs.  Checked here against the engine's own count
(``statistics().recomputed_ops``) for every plan of ``brute_force_nested_plans`` on short
chains (4 layers: 352 plans each) mixing Linear, Tanh, ReLU, Dropout, LayerNorm and Sequential layers.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from checkpoint_steps import plan_step  # tests/checkpoint_steps.py

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint.model import replay_work
from minigrad_ckpt.checkpoint.planner import Block, Plan, plan_cost

W = 3


def _ops(layer):
    """Op forwards of one layer (each module used here is one op)."""
    return len(layer) if isinstance(layer, nn.Sequential) else 1


def _replayed(layers, x, plan):
    """``(op forwards the replays ran, the parameters' gradients)`` of one training step."""
    _, grads, ops = plan_step(layers, x, plan)
    return ops, grads


def _predicted_ops(profile, ops, plan):
    return sum(replay_work(profile, b, ops) for b in plan.blocks if b.checkpointed)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_a_block_ending_in_a_skipped_tanh_replays_nothing(device):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    mg.manual_seed(0)
    layers = [m.to(device) for _ in range(3) for m in (nn.Linear(W, W), nn.Tanh())]
    x = mg.randn(2, W, device=device)
    profile = ck.profile_chain(layers, x)
    plan = Plan((Block(0, 4, False), Block(4, 6, True)))
    # the tanh's output is the block's, kept; the linear's output only the tanh reads
    assert ck.recomputed_layers(profile, plan) == 0 == _replayed(layers, x, plan)[0]
    assert plan_cost(profile, plan) == 0.0
    longer = Plan((Block(0, 3, False), Block(3, 6, True)))  # the tanh before it saves its output: it runs
    assert ck.recomputed_layers(profile, longer) == 1 == _replayed(layers, x, longer)[0]


CHAINS = {
    "linear-dropout-tanh-seq": lambda: [nn.Linear(W, W), nn.Dropout(0.3), nn.Tanh(),
                                        nn.Sequential(nn.Linear(W, W), nn.ReLU())],
    "seq-layernorm-linear-dropout": lambda: [nn.Sequential(nn.Linear(W, W), nn.ReLU()), nn.LayerNorm(W),
                                             nn.Linear(W, W), nn.Dropout(0.3)],
    "seq-relu-linear-tanh": lambda: [nn.Sequential(nn.Linear(W, W), nn.Dropout(0.3)), nn.ReLU(), nn.Linear(W, W),
                                     nn.Tanh()],
    "layernorm-linear-seq-dropout": lambda: [nn.LayerNorm(W), nn.Linear(W, W),
                                             nn.Sequential(nn.Linear(W, W), nn.Tanh()), nn.Dropout(0.3)],
    "tanh-dropout-linear-relu": lambda: [nn.Tanh(), nn.Dropout(0.3), nn.Linear(W, W), nn.ReLU()],
}


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_every_nested_plan_recomputes_what_the_model_predicts(chain):
    mg.manual_seed(0)
    layers = CHAINS[chain]()
    x = mg.randn(2, W, requires_grad=True)
    ops = [_ops(layer) for layer in layers]
    profile = ck.profile_chain(layers, x)
    # the same chain costed in op forwards: plan_cost and the planners then count what the engine counts
    # (where one of these layers runs in part, for its own saved values, it runs all of its ops)
    counted = ck.ChainProfile([dataclasses.replace(lp, forward_seconds=float(k), kept_output_seconds=None,
                                                   own_seconds=float(k) if lp.own_seconds else 0.0)
                               for lp, k in zip(profile.layers, ops)])
    _, plain = _replayed(layers, x, ck.NoCheckpointing().plan(len(layers)))
    measured = {}
    for plan in ck.brute_force_nested_plans(profile):
        got, grads = _replayed(layers, x, plan)
        assert _predicted_ops(profile, ops, plan) == plan_cost(counted, plan) == got, plan
        if all(k == 1 for k in ops):
            assert ck.recomputed_layers(profile, plan) == got, plan
        for g, h in zip(plain, grads):
            np.testing.assert_array_equal(g, h)
        measured[plan.blocks] = (plan.predicted_peak_bytes, got)
    # the planner's choice is the least the engine replays among plans whose predicted peak fits
    for budget in sorted({peak for peak, _ in measured.values()}):
        chosen = ck.plan_for_budget(counted, budget)
        least = min(got for peak, got in measured.values() if peak <= budget)
        assert chosen.predicted_peak_bytes <= budget
        assert _replayed(layers, x, chosen)[0] == chosen.recompute_seconds == least, (budget, chosen)
