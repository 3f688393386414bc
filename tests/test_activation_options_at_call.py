"""Options of the activations as PyTorch reads them (found running PyTorch's test/test_nn.py --
test_softshrink_negative, test_leaky_relu_inplace_with_neg_slope -- against the engine).

- ``F.rrelu``/``nn.RReLU`` take a negative lower bound (PyTorch only asks ``lower <= upper``):
  torch 2.13's ``F.rrelu(x, -5.0, 1.0)`` in evaluation is ``leaky_relu(x, -2.0)``, in training it
  draws each slope from ``[-5, 1]``.  The engine refused any ``lower < 0``.
- ``nn.Softshrink(-1)``, ``nn.CELU(0.0)`` and ``nn.RReLU(0.5, 0.1)`` are built by PyTorch; the call
  raises its RuntimeError.  The engine raised ValueError when building them.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

X = np.array([-1.0, 1.0, -2.0, 0.5])


def test_rrelu_takes_a_negative_lower_bound():
    x = mg.tensor(X, requires_grad=True)
    out = F.rrelu(x, -5.0, 1.0)  # evaluation: the mean slope, -2
    np.testing.assert_allclose(out.numpy(), np.where(X > 0, X, -2.0 * X))
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(X > 0, 1.0, -2.0))
    mg.manual_seed(0)
    drawn = F.rrelu(mg.tensor(X), -5.0, 1.0, training=True).numpy()
    slopes = drawn[X < 0] / X[X < 0]
    assert ((slopes >= -5.0) & (slopes <= 1.0)).all()
    np.testing.assert_allclose(mg.nn.RReLU(-5.0, 1.0).eval()(mg.tensor(X)).numpy(), out.detach().numpy())


@pytest.mark.parametrize("build, words", [
    (lambda: mg.nn.Softshrink(-1.0), "lambd"),
    (lambda: mg.nn.CELU(0.0), "alpha"),
    (lambda: mg.nn.RReLU(0.5, 0.1), "Lower bound should be less than or equal to the upper bound"),
])
def test_a_layer_with_a_refused_option_is_built_and_refused_when_called(build, words):
    layer = build()
    with pytest.raises(RuntimeError, match=words):
        layer(mg.tensor(X))
