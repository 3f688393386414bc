"""``mg.distributions.Uniform`` against ``torch.distributions.Uniform`` 2.13 (it was an AttributeError):
moments, ``log_prob``/``cdf``/``icdf`` at and beyond the bounds, entropy, ``expand``, KL against a
Uniform and a Normal (infinite where ``p`` reaches outside ``q``), ``Independent`` over it, gradients
(``mg.func.grad``) and forward mode (``mg.func.jvp``) of all of them together, in float64 and float32:
torch's values for those are replayed by tests/test_distributions_torch_programs.py; here, the checks,
sampling, gradcheck and the seams. Refusals: torch's messages, quoted beside them."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import gradcheck


@pytest.fixture(autouse=True)
def _default_validation():
    D.Distribution.set_default_validate_args(True)
    yield
    D.Distribution.set_default_validate_args(True)


def test_bounds_are_checked_against_each_other_as_torch():
    # torch: Uniform(1., 0.) -> "Expected parameter low (Tensor of shape ()) of distribution
    # Uniform(low: 1.0, high: 0.0) to satisfy the constraint LessThan(upper_bound=0.0), ..."
    with pytest.raises(ValueError, match=r"parameter low \(Tensor of shape \(\)\) of distribution Uniform\(low: 1.0, "
                                         r"high: 0.0\) to satisfy the constraint LessThan\(upper_bound=0.0\)"):
        D.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="parameter low"):  # an empty interval is refused too
        D.Uniform(mg.tensor([0.0, 1.0]), mg.tensor([1.0, 1.0]))
    assert D.Uniform(1.0, 0.0, validate_args=False).entropy().isnan().item()  # torch: log(-1) = nan
    # torch: Uniform(0., 1.).log_prob(tensor(2.)) -> "... within the support (Interval(lower_bound=0.0, ...)"
    with pytest.raises(ValueError, match=r"within the support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\)"):
        D.Uniform(0.0, 1.0).log_prob(mg.tensor(2.0))
    with pytest.raises(ValueError, match="support"):
        D.Uniform(0.0, 1.0).cdf(mg.tensor(-0.5))
    assert repr(D.Uniform(0.0, 1.0)) == "Uniform(low: 0.0, high: 1.0)"
    assert D.Uniform(mg.zeros(2, 3), 1.0).batch_shape == (2, 3) and D.Uniform(0.0, 1.0).event_shape == ()


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_rsample_is_uniform_on_the_interval_and_differentiable_in_the_bounds(dtype):
    mg.manual_seed(0)
    low = mg.tensor([0.0, 10.0], dtype=dtype, requires_grad=True)
    high = mg.tensor([1.0, 20.0], dtype=dtype, requires_grad=True)
    d = D.Uniform(low, high)
    z = d.rsample((4000,))
    assert z.shape == (4000, 2) and z.dtype == dtype and d.sample((3, 1)).shape == (3, 1, 2)
    assert d.sample().requires_grad is False and z.requires_grad
    drawn = z.detach().numpy()
    assert (drawn >= [0.0, 10.0]).all() and (drawn < [1.0, 20.0]).all()
    np.testing.assert_allclose(drawn.mean(0), [0.5, 15.0], rtol=0.03)
    z.sum().backward()  # d z / d low = 1 - u, d z / d high = u: the two add to the number of draws
    np.testing.assert_allclose((low.grad + high.grad).numpy(), [4000.0, 4000.0], rtol=1e-5)
    u = (drawn - [0.0, 10.0]) / [1.0, 10.0]
    np.testing.assert_allclose(high.grad.numpy(), u.sum(0), rtol=1e-4)


def test_gradcheck_and_the_seams():
    low, high = mg.tensor([0.0, -1.0], dtype=mg.float64), mg.tensor([1.0, 0.5], dtype=mg.float64)

    def objective(lo, hi):
        d = D.Uniform(lo, hi)
        return d.log_prob(mg.tensor([0.5, 0.0], dtype=mg.float64)) + d.cdf(mg.tensor([0.5, 0.0], dtype=mg.float64))

    assert gradcheck(objective, (low.requires_grad_(), high.requires_grad_()))
    # inside a checkpoint: the replayed rsample draws the same numbers, so the gradient is the plain one's
    mg.manual_seed(3)
    plain = D.Uniform(low, high).rsample((5,)).pow(2).sum()
    expected = mg.autograd.grad(plain, (low, high))
    mg.manual_seed(3)
    kept = checkpoint(lambda lo, hi: D.Uniform(lo, hi).rsample((5,)).pow(2).sum(), low, high, use_reentrant=False)
    for got, want in zip(mg.autograd.grad(kept, (low, high)), expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_uniform_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    low = mg.zeros(3, device=device, requires_grad=True)
    d = D.Uniform(low, 2.0)  # the number goes beside the tensor (broadcast_all)
    assert str(d.high.device).startswith(device)
    z = d.rsample((2,))
    total = (d.log_prob(z.detach()).sum() + d.cdf(z.detach()).sum() + d.entropy().sum() + d.mean.sum()
             + D.kl_divergence(d, D.Uniform(low - 1, 3.0)).sum() + D.kl_divergence(d, D.Normal(low, 1.0)).sum())
    total.backward()
    assert str(low.grad.device).startswith(device) and str(d.mode.device).startswith(device)
