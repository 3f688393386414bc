"""A model with checkpointing enabled plans again when its layers change (or their training mode, or
which parameters need gradients), and for each model of a
shared configuration.

``enable_checkpointing`` caches the plan it makes for an input's shape, dtype and device.  A plan
covers the layers it was made for: a model appended to afterwards raised "the plan covers 4 layers,
but there are 5"; a layer replaced, or a second model using the same ``CheckpointingConfig``, ran
under the first layers' plan -- a budget plan made for other layers' sizes, whose measured peak was
over the predicted one (and over the budget).  Gradients stay bitwise those of the model run
without checkpointing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _layer(width, depth=1):
    parts = []
    for _ in range(depth):
        parts += [nn.Linear(8, width), nn.Tanh(), nn.Linear(width, 8), nn.Tanh()]
    return nn.Sequential(*parts)


def _step(model, x):
    """Peak, gradients and the plan of one step (the plan only with checkpointing enabled)."""
    for p in [x, *model.parameters()]:
        p.grad = None
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        model(x).sum().backward()
    grads = [mg.backend.to_host(p.grad._data).copy() for p in [x, *model.parameters()]]
    return ledger.peak("saved"), grads, ck.last_plan(model)


def _plain_grads(model, x):
    config = model._checkpointing
    model.enable_checkpointing(None)
    try:
        return _step(model, x)[1]
    finally:
        model.enable_checkpointing(config)


def _check(model, x):
    peak, grads, plan = _step(model, x)
    assert len(plan.blocks) and plan.blocks[-1].stop == len(model)
    assert peak == plan.predicted_peak_bytes
    for got, want in zip(grads, _plain_grads(model, x)):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_model_appended_to_and_a_layer_replaced_are_planned_again(device, dtype):
    mg.manual_seed(0)
    model = nn.Sequential(*[_layer(8) for _ in range(4)]).to(device).to(dtype)
    model.enable_checkpointing(ck.CheckpointingConfig(ck.Optimal(None)))
    x = mg.randn(4, 8, device=device, dtype=dtype, requires_grad=True)
    _check(model, x)
    model.append(_layer(8).to(device).to(dtype))
    _check(model, x)
    model[1] = _layer(32, depth=2).to(device).to(dtype)  # a layer that saves far more
    _check(model, x)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_two_models_sharing_one_config_each_get_their_plan(device, dtype):
    mg.manual_seed(0)
    config = ck.CheckpointingConfig(ck.Optimal(None))
    small = nn.Sequential(*[_layer(8) for _ in range(6)]).to(device).to(dtype)
    big = nn.Sequential(*[_layer(8, depth=2) for _ in range(6)]).to(device).to(dtype)
    x = mg.randn(4, 8, device=device, dtype=dtype, requires_grad=True)
    for model in (small, big):
        model.enable_checkpointing(config)
    for model in (small, big, small):
        _check(model, x)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_model_switched_to_eval_frozen_or_fed_an_input_needing_a_gradient_is_planned_again(device, dtype):
    """The cached plan was keyed by the input's shape, dtype and device only: a plan made by a
    forward pass in eval mode (batch norm and dropout save other arrays) ran the training steps
    after ``model.train()`` -- Optimal(None)'s plan measured 3,584 bytes where it predicted 3,264
    and the training-mode plan reaches 1,024 -- and so did a plan made before parameters were
    frozen, or for an input that needed no gradient (the ledger counts it, a leaf needing one not)."""
    mg.manual_seed(0)
    layers = []
    for _ in range(6):
        layers += [nn.Linear(16, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Dropout(0.3)]
    model = nn.Sequential(*layers).to(device).to(dtype)
    model.enable_checkpointing(ck.CheckpointingConfig(ck.Optimal(None)))
    x = mg.randn(8, 16, device=device, dtype=dtype)

    def step(x):
        with warnings.catch_warnings(), mg.memory.track() as ledger:
            warnings.simplefilter("ignore", ck.CheckpointCostWarning)
            model(x).sum().backward()
        plan = ck.last_plan(model)
        assert ledger.peak("saved") == plan.predicted_peak_bytes
        return plan

    model.eval()
    in_eval = step(x)
    model.train()
    assert step(x) is not in_eval
    for p in model[0].parameters():
        p.requires_grad_(False)
    step(x)
    step(x.detach().requires_grad_())
