"""``mg.histogramdd``: torch 2.13's D-dimensional histogram -- its edges (``linspace`` in the
input's dtype), its binning (the last bin closed), its density order and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = mg.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]])


def test_counts_weights_and_edges_are_pytorchs():
    r = mg.histogramdd(X[:4], bins=[3, 3], weight=mg.tensor([1.0, 2.0, 4.0, 8.0]))
    assert type(r).__name__ == "histogramdd" and r.hist.dtype == mg.float32
    assert r.hist.tolist() == [[0, 1, 0], [2, 0, 0], [4, 0, 8]]                               # torch 2.13
    assert [e.tolist() for e in r.bin_edges] == [[0.0, 0.6666666865348816, 1.3333332538604736, 2.0]] * 2
    assert mg.histogramdd(mg.arange(6.0).reshape(3, 2), bins=2).hist.tolist() == [[1, 0], [0, 2]]
    given = mg.histogramdd(X[:4], bins=[mg.tensor([0.0, 1.0, 2.0]), mg.tensor([0.0, 0.5, 2.0])])
    assert given.hist.tolist() == [[0, 1], [2, 1]]
    assert mg.histogramdd(X[:4], bins=2, range=[0.0, 1.0, 0.0, 1.0]).hist.tolist() == [[0, 1], [1, 0]]


def test_density_divides_by_the_total_then_each_width_in_float32():
    r = mg.histogramdd(X, bins=[2, 3], density=True, weight=mg.tensor([1.0, 2.0, 4.0, 8.0, 0.5]))
    want = [[0.0, 0.09677420556545258, 0.048387087881565094], [0.5806451439857483, 0.0, 0.7741934061050415]]
    assert np.array_equal(r.hist.numpy(), np.array(want, dtype=np.float32))                  # torch's bits
    assert r.bin_edges[1].tolist() == [0.0, 0.6666666865348816, 1.3333332538604736, 2.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda: mg.histogramdd(X, bins=[2]), RuntimeError, "The size of bins must be equal to the innermost dimension"),
    (lambda: mg.histogramdd(X, bins=2, range=[0.0, 1.0]), RuntimeError,
     "for a 2-dimensional histogram range should have 4 elements, but got 2"),
    (lambda: mg.histogramdd(X.long(), bins=2), NotImplementedError, "\"histogramdd\" not implemented for 'Long'"),
    (lambda: mg.histogramdd(X, bins=2, range=[1.0, 0.0, 0.0, 1.0]), RuntimeError,
     "min should not exceed max, but got min 1 max 0 for dimension 0"),
    (lambda: mg.histogramdd(X, bins=2, weight=mg.ones(3)), RuntimeError,
     r"weight with shape \[3\]"),
    (lambda: mg.histogramdd(X, bins=0), RuntimeError, "bins must be > 0, but got 0 for dimension 0"),
])
def test_refusals_are_pytorchs(call, error, message):
    with pytest.raises(error, match=message):
        call()
