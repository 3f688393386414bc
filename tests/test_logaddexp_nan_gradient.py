"""A NaN operand of ``logaddexp`` (and ``logaddexp2``, ``F.softplus``, ``F.logsigmoid``, which are
built on it) gets a NaN gradient, as PyTorch's: the softmax weight treated every NaN difference
as ``inf - inf`` and split the gradient evenly, so ``softplus(nan)`` had gradient 1/2.  The same
infinity twice still splits evenly (the engine's rule, kept).

Expected values are torch 2.13's (CPU), written in; each comment names the torch expression.
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

NAN, INF = math.nan, math.inf
F = mg.nn.functional

CASES = [
    # torch.logaddexp(a, b).sum().backward() at a = [nan, 1, nan], b = [0, nan, nan]: every gradient NaN
    ("logaddexp", mg.logaddexp, [[NAN, 1.0, NAN], [0.0, NAN, NAN]], [[NAN] * 3, [NAN] * 3]),
    ("logaddexp2", mg.logaddexp2, [[NAN, 1.0], [0.0, NAN]], [[NAN] * 2, [NAN] * 2]),
    # torch: F.softplus(x).sum().backward() at x = [nan, 1.0] -> [nan, sigmoid(1)]
    ("softplus", F.softplus, [[NAN, 1.0]], [[NAN, 0.7310585786300049]]),
    ("softplus(beta=2, threshold=5)", lambda x: F.softplus(x, beta=2.0, threshold=5.0), [[NAN, 1.0]],
     [[NAN, 0.8807970779778824]]),
    ("logsigmoid", F.logsigmoid, [[NAN, 1.0]], [[NAN, 0.2689414213699951]]),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("name, fn, inputs, want", CASES, ids=[c[0] for c in CASES])
@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_a_nan_operand_has_a_nan_gradient(name, fn, inputs, want, dtype, device):
    assert_torch_gradients(fn, inputs, want, dtype, device)


def test_the_same_infinity_twice_still_splits_evenly():
    a = mg.tensor([INF, 2.0], requires_grad=True)
    b = mg.tensor([INF, 2.0], requires_grad=True)
    mg.logaddexp(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.5] and b.grad.tolist() == [0.5, 0.5]
