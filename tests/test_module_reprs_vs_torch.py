"""Module reprs and submodules as torch 2.13's, found by constructing every layer both engines have:
``Hardswish(inplace=True)`` and ``Hardsigmoid(inplace=True)`` print ``Hardswish()`` (no options, as
PyTorch's; the engine printed ``inplace=True``), and ``TripletMarginWithDistanceLoss()``'s default
distance is a ``PairwiseDistance`` submodule (it prints, ``named_modules()`` lists it)."""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg


def test_hardswish_and_hardsigmoid_print_no_options():
    for inplace in (False, True):
        assert repr(mg.nn.Hardswish(inplace=inplace)) == "Hardswish()"
        assert repr(mg.nn.Hardsigmoid(inplace=inplace)) == "Hardsigmoid()"
    assert repr(mg.nn.ReLU(inplace=True)) == "ReLU(inplace=True)"  # these print it, as PyTorch's


def test_triplet_margin_with_distance_loss_holds_its_default_distance():
    m = mg.nn.TripletMarginWithDistanceLoss()
    assert repr(m) == "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    assert [n for n, _ in m.named_modules()] == ["", "distance_function"] and not m.state_dict()
    a, p, n = (mg.tensor(np.random.default_rng(i).standard_normal((3, 4))) for i in range(3))
    assert float(m(a, p, n)) == float(mg.nn.functional.triplet_margin_with_distance_loss(a, p, n))
    custom = mg.nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: (x - y).abs().sum(-1))
    assert repr(custom) == "TripletMarginWithDistanceLoss()"
