"""``hardswish`` and ``mish`` are one op each, PyTorch's kernels and backwards (``HardswishBackward0``,
``MishBackward0``).  As compositions, ``hardswish(x)`` returned ``x`` itself from 3 on where PyTorch's
``x * 6 / 6`` differs in the last bit for 14% of float32 values, their gradients were a unit off for a
fifth of the values, and an infinite upstream gradient met ``inf - inf`` in the chain rule (NaN where
PyTorch's single backward gives +-inf).  PyTorch 2.13 agrees bit for bit with the hardswish references
below (checked offline); mish's transcendentals are NumPy's, so it is checked by its classes and by
central differences."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

F = mg.nn.functional
DEVICES = ["cpu", "strict"]


def _hardswish(x):
    with np.errstate(invalid="ignore"):
        return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


def _hardswish_grad(x, g):
    with np.errstate(invalid="ignore"):
        return np.where(x <= -3, 0, np.where(x < 3, g * (x / 3 + 0.5), g)).astype(x.dtype)


def _points(dtype):
    rng = np.random.default_rng(0)
    return np.concatenate([rng.uniform(-6, 6, 500), rng.uniform(3, 100, 500),
                           [-3, 3, 0, -0.0, np.inf, -np.inf, -30, 30]]).astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hardswish_is_pytorchs_kernel_and_backward(device, dtype):
    x = _points(dtype)
    g = np.random.default_rng(1).standard_normal(x.size).astype(dtype)
    t = mg.tensor(x, device=device, requires_grad=True)
    out = F.hardswish(t)
    assert out.grad_fn.name() == "HardswishBackward0"
    np.testing.assert_array_equal(out.detach().cpu().numpy(), _hardswish(x))
    out.backward(mg.tensor(g, device=device))
    np.testing.assert_array_equal(t.grad.cpu().numpy(), _hardswish_grad(x, g))


def test_hardswish_from_three_on_is_x_times_six_over_six():
    x = np.random.default_rng(2).uniform(3, 100, 2000).astype(np.float32)
    got = F.hardswish(mg.tensor(x)).numpy()
    assert np.mean(got != x) > 0.1  # PyTorch's rounding, not x itself
    np.testing.assert_array_equal(got, (x * np.float32(6)) / np.float32(6))


def test_float16_is_computed_in_float32_and_rounded_once():
    x = _points(np.float16)
    g = np.random.default_rng(3).standard_normal(x.size).astype(np.float16)
    t = mg.tensor(x, requires_grad=True)
    out = F.hardswish(t)
    np.testing.assert_array_equal(out.detach().numpy(), _hardswish(x.astype(np.float32)).astype(np.float16))
    out.backward(mg.tensor(g))
    expected = _hardswish_grad(x.astype(np.float32), g.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(t.grad.numpy(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_an_infinite_upstream_gradient_stays_infinite(device):
    x = mg.tensor([-4.0, -3.0, -1.0, 0.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
    F.hardswish(x).backward(mg.full((7,), float("inf"), device=device))
    # PyTorch: 0 where the derivative is selected away (up to -3), else inf times the derivative
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [0, 0, np.inf, np.inf, np.inf, np.inf, np.inf])
    y = mg.tensor([-30.0, -1.0, 0.0, 2.0, float("inf"), -float("inf")], device=device, requires_grad=True)
    out = F.mish(y)
    assert out.grad_fn.name() == "MishBackward0"
    out.backward(mg.full((6,), float("inf"), device=device))
    # mish' is negative far left, positive near 0, NaN at +-inf (inf * 0), as PyTorch's mish_backward
    got = y.grad.cpu().numpy()
    np.testing.assert_array_equal(got[:4], [-np.inf, np.inf, np.inf, np.inf])
    assert np.isnan(got[4:]).all()


@pytest.mark.parametrize("fn", ["mish", "hardswish"])
def test_gradients_second_derivatives_and_tangents_agree_with_central_differences(fn):
    x = mg.tensor(np.array([-5.1, -2.7, -1.3, -0.2, 0.4, 1.9, 2.6, 4.2]), requires_grad=True)
    f = getattr(F, fn)
    assert mg.autograd.gradcheck(f, (x,))
    assert mg.autograd.gradgradcheck(f, (x,))
    _, tangent = mg.func.jvp(f, (x.detach(),), (mg.ones(8, dtype=mg.float64),))
    (grad,) = mg.autograd.grad(f(x).sum(), x)
    np.testing.assert_array_equal(tangent.numpy(), grad.numpy())


@pytest.mark.parametrize("fn", ["mish", "hardswish"])
def test_inside_a_checkpoint_the_gradient_is_the_same_bit_for_bit(fn):
    data = np.random.default_rng(4).uniform(-5, 5, (16, 8))
    grads = []
    for wrap in (lambda h, t: h(t), mg.checkpoint.checkpoint):
        x = mg.tensor(data, requires_grad=True)
        wrap(lambda t: getattr(F, fn)(t * 1.5).sum(), x).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)
