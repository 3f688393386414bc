"""``WeightedRandomSampler(weights, n, replacement=False)`` with more samples than positive weights,
against torch 2.13's answers recorded by ``tests/data/make_torch_weighted_sampler_zeros.py`` (the
test never imports torch): the positive-weight indices come first, then distinct zero-weight
indices (torch's order among those is its topk's tie-break, so only which and how many are
compared); more samples than indices is a RuntimeError."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from weighted_sampler_zeros_cases import structure  # noqa: E402

TORCH = json.loads((DATA / "torch_weighted_sampler_zeros.json").read_text())


@pytest.mark.parametrize("name", sorted(TORCH["cases"]))
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_zero_weights_follow_the_positive_ones_as_in_torch(name, seed):
    # before: a RuntimeError whenever n exceeded the number of positive weights
    case = TORCH["cases"][name]
    ours = structure(mg, case["weights"], case["n"], seed)
    for theirs in case["structures"]:
        if theirs[0] == "error":
            assert ours == theirs
            continue
        zeros = {i for i, w in enumerate(case["weights"]) if w == 0}
        assert ours[0] == theirs[0]
        assert len(ours[1]) == len(theirs[1]) == len(set(ours[1])) and set(ours[1]) <= zeros
