"""The cases ``make_torch_weighted_sampler_zeros.py`` records with PyTorch and
``tests/test_data_weighted_sampler_zeros.py`` checks: ``WeightedRandomSampler(weights, n,
replacement=False)`` with ``n`` past the number of positive weights, and ``structure``, what a draw
looks like in words both libraries share (the set drawn first and the zero-weight tail)."""

from __future__ import annotations

from typing import Any

CASES = {"two_of_four_positive_n3": ([0.0, 1.0, 1.0, 0.0], 3), "two_of_four_positive_n4": ([0.0, 1.0, 1.0, 0.0], 4),
         "one_positive_n3": ([0.0, 0.0, 2.0, 0.0, 0.0], 3), "n_over_len": ([0.0, 1.0, 1.0, 0.0], 5)}


def structure(lib: Any, weights: list[float], n: int, seed: int) -> list[Any]:
    """``[sorted(first draws, one per positive weight), the rest]``, or ``["error", type name]``."""
    sampler = lib.utils.data.WeightedRandomSampler(weights, n, replacement=False,
                                                   generator=lib.Generator().manual_seed(seed))
    try:
        drawn = [int(i) for i in sampler]
    except Exception as exc:  # noqa: BLE001 -- the error type is the answer
        return ["error", type(exc).__name__]
    positive = sum(w > 0 for w in weights)
    return [sorted(drawn[:positive]), drawn[positive:]]
