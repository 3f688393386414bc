"""NaN in, NaN out: the piecewise activations keep a NaN as PyTorch does (a NaN fails every
comparison, so it must land in a branch that passes it on), with PyTorch's gradient there.

Expected values are torch 2.13's (CPU), written in as literals; each comment names the
torch expression.
"""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional
NAN = math.nan
X = [NAN, -4.0, -0.25, 0.0, 0.25, 4.0]

# name, call, torch's values of F.<name>(tensor(X)), torch's gradient of F.<name>(x).sum() at X.
# hardshrink's and softshrink's gradient at NaN is 1 as torch's formula and its scalar loop give
# it (short tensors, as here); torch's vectorized kernel (16 or more elements) gives 0 there.
CASES = [
    ("hardsigmoid", F.hardsigmoid, [NAN, 0.0, 0.4583333333333333, 0.5, 0.5416666666666666, 1.0],
     [0.0, 0.0, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204, 0.0]),  # (1.0f / 6.0f, in float64 too)
    ("hardshrink", F.hardshrink, [NAN, -4.0, 0.0, 0.0, 0.0, 4.0], [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
    ("softshrink", F.softshrink, [NAN, -3.5, 0.0, 0.0, 0.0, 3.5], [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
    # F.threshold(x, 0.0, -5.0)
    ("threshold", lambda x: F.threshold(x, 0.0, -5.0), [NAN, -5.0, -5.0, -5.0, 0.25, 4.0],
     [1.0, 0.0, 0.0, 0.0, 1.0, 1.0]),
]


def _same(t, expected, dtype):
    got = np.asarray(t.numpy(), dtype=np.float64)
    tol = 1e-7 if dtype == mg.float32 else 1e-15
    np.testing.assert_allclose(got, expected, rtol=tol, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name, fn, values, grads", CASES, ids=[c[0] for c in CASES])
def test_nan_stays_nan_with_pytorchs_gradient(name, fn, values, grads, dtype):
    x = mg.tensor(X, dtype=dtype, requires_grad=True)
    out = fn(x)
    assert out.dtype == dtype
    _same(out, values, dtype)
    out.sum().backward()
    _same(x.grad, grads, dtype)
    _same(mg.func.grad(lambda v: fn(v).sum())(x.detach()), grads, dtype)
    value, tangent = mg.func.jvp(fn, (x.detach(),), (mg.ones_like(x),))
    _same(value, values, dtype)
    _same(tangent, grads, dtype)


@pytest.mark.parametrize("module", [mg.nn.Hardsigmoid(), mg.nn.Hardshrink(), mg.nn.Softshrink(),
                                    mg.nn.Threshold(0.0, -5.0)])
def test_the_modules_keep_nan(module):
    # torch.nn.<Module>(...)(tensor([nan])) is tensor([nan])
    assert math.isnan(module(mg.tensor([NAN])).numpy()[0])


def test_in_place_threshold_keeps_nan():
    x = mg.tensor([NAN, -1.0, 2.0])
    F.threshold(x, 0.0, -5.0, inplace=True)  # torch: F.threshold(x, 0., -5., inplace=True)
    got = x.numpy()
    assert math.isnan(got[0]) and got[1:].tolist() == [-5.0, 2.0]
