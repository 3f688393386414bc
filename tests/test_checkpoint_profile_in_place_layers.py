"""A layer that writes its input in place (``relu(h, inplace=True)``, ``h.mul_(2)``) in a profiled chain.

The tensor it writes takes a new array and history (docs/from-pytorch.md, "In-place changes on the
tape"), so the layer before it returned one array and the in-place layer another.  ``profile_chain``
looked at the layers' outputs only after the whole run, when both were the new array: the layer
before seemed to output what the in-place layer made, and the in-place layer to read its own
output and a "constant" from outside (the old array) -- every plan with it inside a checkpointed
block was predicted one activation above what the ledger measured.  The profile now takes each
layer's output as it is when the layer returns.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_steps import plan_step

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F


class ReluInPlace(nn.Module):
    def forward(self, x):
        return F.relu(x, inplace=True)


class DoubleInPlace(nn.Module):
    def forward(self, x):
        return x.mul_(2.0)


@pytest.mark.parametrize("in_place", [ReluInPlace, DoubleInPlace])
def test_an_in_place_layer_reads_the_output_of_the_layer_before_it(in_place):
    mg.manual_seed(0)
    layers = [nn.Linear(6, 6), in_place(), nn.Tanh()]
    profile = ck.profile_chain(layers, mg.randn(5, 6))
    first, written, _ = profile.layers
    assert first.output_key == written.input_key != written.output_key
    assert written.local_external == {}  # the array it wrote is its input, not a constant


@pytest.mark.parametrize("in_place", [ReluInPlace, DoubleInPlace])
@pytest.mark.parametrize("x_grad", [False, True])
def test_every_plan_of_a_chain_with_an_in_place_layer_measures_its_prediction(in_place, x_grad):
    mg.manual_seed(1)
    layers = [nn.Linear(6, 6), in_place(), nn.Tanh(), nn.Linear(6, 6)]
    x = mg.randn(5, 6, requires_grad=x_grad)
    profile = ck.profile_chain(layers, x)
    _, plain, _ = plan_step(layers, x, ck.NoCheckpointing().plan(len(layers)))
    for plan in ck.brute_force_nested_plans(profile):
        peak, grads, _ = plan_step(layers, x, plan)
        assert peak == plan.predicted_peak_bytes == ck.simulate_peak(profile, plan), plan
        for g, h in zip(plain, grads):
            np.testing.assert_array_equal(g, h)
