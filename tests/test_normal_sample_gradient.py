"""``mg.normal(mean, std)``: PyTorch's derivative, dtype and checks of ``std``.

torch 2.13's ``torch.normal`` is not reparameterized: its result requires grad where ``mean`` or
``std`` does, and ``NormalBackward`` answers zeros for both.  mg answered ``mean + std * z`` with
``z`` a constant, so ``mean.grad`` was 1 and ``std.grad`` was ``z`` -- and a Gaussian policy's
``-Normal(mu, sigma).log_prob(mg.normal(mu, sigma))`` got a gradient through the action as well
(for ``mu`` the two paths cancel: 0, where PyTorch's is ``-(a - mu) / sigma^2``).

The result's dtype is ``mean``'s (``std``'s for a number ``mean``): torch.normal(float32, float64)
is float32 (mg promoted to float64).  A negative or NaN std is refused, as PyTorch's
("normal expects all elements of std >= 0.0", "normal expects std >= 0.0, but found std -1"), in
``mg.normal``, ``x.normal_`` and ``nn.init.normal_`` (mg drew with it, or only ``x.normal_`` refused
a negative one).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_the_derivative_is_zero_and_recorded_as_pytorchs(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    mean = mg.tensor([0.0, 1.0, -2.0], dtype=dtype, device=device, requires_grad=True)
    std = mg.tensor([1.0, 0.5, 2.0], dtype=dtype, device=device, requires_grad=True)
    for out in (mg.normal(mean, std), mg.normal(mean, 2.0), mg.normal(0.5, std)):
        assert out.requires_grad and out.dtype == dtype
        mean.grad = std.grad = None
        (out * mg.tensor([1.0, float("inf"), -3.0], dtype=dtype, device=device)).sum().backward()
        for leaf in (mean, std):
            assert leaf.grad is None or np.array_equal(leaf.grad.numpy(), np.zeros(3))
    assert mean.grad is None and np.array_equal(std.grad.numpy(), np.zeros(3))  # the last: a number mean


def test_a_gaussian_policys_gradient_comes_from_log_prob_alone():
    mu = mg.tensor([0.3, -1.0], dtype=mg.float64, requires_grad=True)
    sigma = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    action = mg.normal(mu, sigma)
    loss = -mg.distributions.Normal(mu, sigma).log_prob(action).sum()
    loss.backward()
    a, m, s = action.detach().numpy(), mu.detach().numpy(), sigma.detach().numpy()
    np.testing.assert_allclose(mu.grad.numpy(), -(a - m) / s ** 2, rtol=1e-14)
    np.testing.assert_allclose(sigma.grad.numpy(), 1 / s - (a - m) ** 2 / s ** 3, rtol=1e-14)


def test_the_dtype_is_the_means():
    f32, f64 = mg.zeros(2, dtype=mg.float32), mg.ones(2, dtype=mg.float64)
    assert mg.normal(f32, f64).dtype == mg.float32 and mg.normal(f64, f32.abs() + 1).dtype == mg.float64
    assert mg.normal(0.0, f32 + 1).dtype == mg.float32 and mg.normal(f64, 1.0).dtype == mg.float64
    assert mg.normal(mg.zeros(2, 1), mg.ones(3)).shape == (2, 3)


@pytest.mark.parametrize("call, message", [
    (lambda: mg.normal(mg.zeros(2), mg.tensor([1.0, -1.0])), "normal expects all elements of std >= 0.0"),
    (lambda: mg.normal(mg.zeros(2), mg.tensor([1.0, float("nan")])), "normal expects all elements of std >= 0.0"),
    (lambda: mg.normal(mg.zeros(2), -0.5), "normal expects std >= 0.0, but found std -0.5"),
    (lambda: mg.normal(-1.0, mg.tensor([1.0, -1.0])), "normal expects all elements of std >= 0.0"),
    (lambda: mg.normal(0.0, float("nan"), (2,)), "normal expects std >= 0.0, but found std nan"),
    (lambda: mg.zeros(2).normal_(0.0, float("nan")), "normal expects std >= 0.0, but found std nan"),
    (lambda: mg.nn.init.normal_(mg.zeros(2), 0.0, -1.0), "normal expects std >= 0.0, but found std -1"),
])
def test_a_negative_or_nan_std_is_refused_as_pytorch(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_under_the_transforms_and_checkpoint():
    m0 = mg.tensor([0.5, -1.0], dtype=mg.float64)
    np.testing.assert_array_equal(mg.func.grad(lambda m: mg.normal(m, 1.0).sum())(m0).numpy(), [0.0, 0.0])
    _, tangent = mg.func.jvp(lambda m: mg.normal(m, 1.0), (m0,), (mg.ones_like(m0),))
    np.testing.assert_array_equal(tangent.numpy(), [0.0, 0.0])
    # d/dm [normal(m, s) * m] is the draw itself; the checkpoint's replay draws it again
    m = m0.clone().requires_grad_()
    mg.manual_seed(3)
    y = mg.checkpoint.checkpoint(lambda v: mg.normal(v, 0.5) * v, m, use_reentrant=False)
    mg.manual_seed(3)
    drawn = mg.normal(m0, 0.5)
    y.sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), drawn.numpy())
