"""PyTorch's deprecation warnings the engine did not give: ``x.T`` of a tensor of more than 2 dimensions
(use ``x.mT`` or ``permute``) and of a 0-d tensor (the identity), none for 1 and 2; ``F.upsample``,
``F.upsample_nearest`` and ``F.upsample_bilinear`` (use ``interpolate``), none for ``nn.Upsample``.  The values
are unchanged.  Expected: torch 2.13's UserWarnings and words on the same calls.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("shape, words", [
    ((2, 3, 4), "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated"),
    ((), "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."),
    ((3,), None), ((2, 3), None)])
def test_transpose_property(shape, words):
    x = mg.arange(int(np.prod(shape)), dtype=mg.float64).reshape(shape)
    value, caught = _caught(lambda: x.T)
    np.testing.assert_array_equal(value.numpy(), x.numpy().T)
    assert [c for c, m in caught] == ([] if words is None else [UserWarning])
    assert words is None or caught[0][1].startswith(words)


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_the_old_names_of_interpolate(name):
    x = mg.arange(4.0).reshape(1, 1, 2, 2)
    value, caught = _caught(lambda: getattr(F, name)(x, scale_factor=2))
    assert caught == [(UserWarning, f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.")]
    assert value.shape == (1, 1, 4, 4)
    assert _caught(lambda: mg.nn.Upsample(scale_factor=2)(x))[1] == []
