"""Negating a bool tensor is PyTorch's ``RuntimeError`` with its message, in every spelling.

``-mg.tensor([True, False])`` (``mg.neg``, ``mg.negative``, ``x.neg()``, ``x.neg_()``) leaked NumPy's
``TypeError`` ("The numpy boolean negative, the `-` operator, is not supported ..."); torch 2.13
raises ``RuntimeError: Negation, the `-` operator, on a bool tensor is not supported. If you are
trying to invert a mask, use the `~` or `logical_not()` operator instead.`` -- as the engine
already did for ``mask - mask``.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SPELLINGS = {
    "-x": lambda x: -x,
    "mg.neg": lambda x: mg.neg(x),
    "mg.negative": lambda x: mg.negative(x),
    "x.neg()": lambda x: x.neg(),
    "x.neg_()": lambda x: x.neg_(),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_negating_a_bool_tensor_is_pytorchs_runtime_error(spelling, device):
    x = mg.tensor([True, False], device=device)
    with pytest.raises(RuntimeError, match=r"Negation, the `-` operator, on a bool tensor is not supported"):
        SPELLINGS[spelling](x)
    assert x.tolist() == [True, False]


def test_other_dtypes_still_negate():
    assert (-mg.tensor([1, -2], dtype=mg.int8)).tolist() == [-1, 2]
    assert (-mg.tensor([0.0, 1.5])).tolist() == [-0.0, -1.5]
