"""``cov`` with a correction at or past the number of observations divides by 0, as PyTorch's
(and NumPy's), with their warning -- never by a negative number.

torch 2.13: ``torch.cov(tensor([[1., 2.], [3., 5.]]), correction=3)`` is all ``inf`` (divisor
``max(0, N - correction)``) and the covariance of no observations is NaN; the engine divided by
``N - correction = -1`` and answered the covariance with its sign flipped (``[[-0.5, -1], ...]``),
silently, and ``-0.0`` for no observations.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = [[1.0, 2.0], [3.0, 5.0]]


@pytest.mark.parametrize("spelling", [
    lambda x: x.cov(correction=3),
    lambda x: mg.cov(x, correction=2),
    lambda x: mg.cov(x, ddof=5),                               # NumPy's spelling: NumPy's divisor 0 too
])
def test_too_large_a_correction_divides_by_zero_with_a_warning(spelling):
    with pytest.warns(UserWarning, match="degrees of freedom"):
        out = spelling(mg.tensor(X))
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), np.inf))       # torch 2.13


@pytest.mark.parametrize("weights", [{"fweights": [1, 1]}, {"aweights": [1.0, 1.0]}])
def test_with_weights_too(weights):
    out = mg.tensor(X).cov(correction=3, **{k: mg.tensor(v) for k, v in weights.items()})
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), np.inf))       # torch 2.13


def test_no_observations_is_nan_and_enough_observations_are_unchanged():
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert np.isnan(mg.cov(mg.zeros(2, 0)).numpy()).all()
    x = mg.tensor(X, requires_grad=True)
    c = x.cov(correction=0)
    np.testing.assert_allclose(c.detach().numpy(), [[0.25, 0.5], [0.5, 1.0]])
    c.sum().backward()
    assert x.grad.shape == (2, 2)
