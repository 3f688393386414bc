"""``trapezoid``/``cumulative_trapezoid`` with 1-D sample points ``x`` of another length than ``y``
along ``dim``: PyTorch's RuntimeError "There must be one `x` value for each sample point".

Found running test_torch.py's test_trapz against the engine: ``x`` of two points beside three samples
gave one width, broadcast over both intervals -- a wrong integral (as NumPy's ``trapezoid`` of a list
gives), where torch 2.13 refuses.  An ``x`` of as many points, and an N-D ``x`` that broadcasts, are
unchanged; the expected values are torch 2.13's, pasted.
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
@pytest.mark.parametrize("points", [[1.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
def test_one_dim_points_of_another_length_are_refused(name, points):
    y = mg.ones(2, 3, dtype=mg.float64)
    with pytest.raises(RuntimeError, match=f"^{name}: There must be one `x` value for each sample point$"):
        getattr(mg, name)(y, x=mg.tensor(points, dtype=mg.float64), dim=1)


def test_points_that_fit_are_integrated_as_before():
    y = mg.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 0.0]], dtype=mg.float64)
    x = mg.tensor([0.0, 1.0, 3.0], dtype=mg.float64)
    assert mg.trapezoid(y, x=x, dim=1).tolist() == [7.5, 1.5]
    assert mg.cumulative_trapezoid(y, x=x, dim=1).tolist() == [[1.5, 7.5], [0.5, 1.5]]
    assert mg.trapezoid(mg.ones(1, 10), x=mg.tensor([1.0]), dim=0).tolist() == [0.0] * 10
    assert mg.trapezoid(mg.ones(2, 3, dtype=mg.float64), x=mg.ones(1, 3, dtype=mg.float64), dim=1).tolist() == [0, 0]
