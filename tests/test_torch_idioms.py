"""PyTorch idioms that work alongside the NumPy names (issue 16)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_randperm_is_a_seeded_permutation():
    mg.manual_seed(4)
    a = mg.randperm(50)
    mg.manual_seed(4)
    b = mg.randperm(50)
    assert a.dtype == np.int64 and a.tolist() == b.tolist()
    assert sorted(a.tolist()) == list(range(50)) and a.tolist() != list(range(50))
    assert mg.randperm(0).shape == (0,) and mg.randperm(5, dtype="int32").dtype == np.int32
    with pytest.raises(ValueError, match="non-negative"):
        mg.randperm(-1)


def test_from_numpy_shares_memory():
    a = np.zeros(3, dtype=np.float32)
    t = mg.from_numpy(a)
    a[1] = 2.0
    assert t.dtype == np.float32 and t.tolist() == [0.0, 2.0, 0.0]
    with pytest.raises(TypeError, match="numpy.ndarray"):
        mg.from_numpy([1, 2])
