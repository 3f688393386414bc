"""``VonMises`` and ``InverseGamma``, PyTorch's (AttributeErrors before): torch's log_prob, variance,
moments, entropy, cdf, expand and gradients (``mg.func.grad``) are replayed by
tests/test_distributions_transformed_families.py (case ``von_mises_and_inverse_gamma``); here the von Mises
draws against its circular moments (fixed seed), the Bessel approximation against SciPy-free series, shapes,
refusals (torch's, quoted), the strict devices, and InverseGamma's ``rsample`` at the seams."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams  # noqa: E402


def _bessel_i(order, x, terms=150):
    """``I_order(x)`` by its power series, each term from the last (no factorial overflows)."""
    term = (x / 2) ** order / math.factorial(order)
    total = term
    for m in range(1, terms):
        term *= (x / 2) ** 2 / (m * (m + order))
        total += term
    return total


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_von_mises_draws_have_its_circular_moments(dtype):
    mg.manual_seed(61)
    d = D.VonMises(mg.tensor([0.3, 2.5, -3.0, 0.0], dtype=dtype), mg.tensor([0.5, 5.0, 40.0, 1e-6], dtype=dtype))
    x = d.sample((20000,))
    assert x.shape == (20000, 4) and x.dtype == dtype and not d.has_rsample
    assert x.numpy().min() >= -math.pi and x.numpy().max() < math.pi
    resultant = np.exp(1j * x.numpy().astype(np.float64)).mean(0)
    np.testing.assert_allclose(np.angle(resultant[:3]), [0.3, 2.5, -3.0], atol=0.05)
    # the circular variance 1 - I1(k)/I0(k); the draws' 1 - |mean resultant|
    want = [1 - _bessel_i(1, k) / _bessel_i(0, k) for k in (0.5, 5.0, 40.0)]
    np.testing.assert_allclose(1 - np.abs(resultant[:3]), want, atol=0.012)
    # the polynomial approximation is within 1e-7; float32's 1 - I1/I0 cancels to 3e-6
    np.testing.assert_allclose(d.variance.numpy()[:3], want, atol=1e-6 if dtype == mg.float64 else 5e-6)


def test_von_mises_density_integrates_to_one():
    k = np.array([0.5, 3.0, 5.0, 40.0])
    grid = np.linspace(-math.pi, math.pi, 20001)
    d = D.VonMises(mg.tensor(0.4, dtype=mg.float64), mg.tensor(k))
    density = d.log_prob(mg.tensor(grid[:, None])).exp().numpy()
    np.testing.assert_allclose(np.trapezoid(density, grid, axis=0), 1.0, rtol=5e-7)  # Bessel approximation: 1e-7


def test_shapes_and_refusals_as_torch():
    d = D.VonMises(mg.tensor([0.0, 1.0]), mg.tensor(2.0))
    assert d.batch_shape == (2,) and d.expand((3, 2)).sample((4,)).shape == (4, 3, 2)
    assert repr(D.VonMises(mg.tensor(0.0), mg.tensor(2.0))) == "VonMises(loc: 0.0, concentration: 2.0)"
    # torch: "Expected parameter concentration (Tensor of shape ()) of distribution VonMises(loc: 0.0,
    # concentration: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), ..."
    with pytest.raises(ValueError, match=r"parameter concentration \(Tensor of shape \(\)\) of distribution "
                                         r"VonMises\(loc: 0.0, concentration: -1.0\)"):
        D.VonMises(mg.tensor(0.0), mg.tensor(-1.0))
    ig = D.InverseGamma(mg.tensor([1.5, 3.0]), mg.tensor(2.0))
    assert repr(ig) == "InverseGamma()" and ig.has_rsample and type(ig.expand((3, 2))) is D.InverseGamma
    with pytest.raises(ValueError, match=r"of distribution Gamma\(concentration: -1.0, rate: 2.0\)"):
        D.InverseGamma(mg.tensor(-1.0), mg.tensor(2.0))  # torch: its Gamma's refusal
    mg.manual_seed(62)
    x = D.InverseGamma(mg.tensor(5.0, dtype=mg.float64), mg.tensor(2.0, dtype=mg.float64)).rsample((40000,))
    assert abs(x.numpy().mean() / 0.5 - 1) < 0.02  # mean rate / (c - 1)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    k = mg.tensor([0.5, 5.0], dtype=dtype, device=device, requires_grad=True)
    vm, ig = D.VonMises(k * 0, k), D.InverseGamma(k + 1, k)
    total = vm.log_prob(vm.sample((3,))).sum() + vm.variance.sum() + ig.rsample((2,)).sum() + ig.entropy().sum()
    total.backward()
    assert str(k.grad.device).startswith(device) and k.grad.dtype == dtype and bool(k.grad.isfinite().all().item())


def _loss(concentration, rate):
    return D.InverseGamma(concentration, rate).rsample((4,)).sum() + D.VonMises(rate, concentration).variance.sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    concentration = mg.tensor([1.5, 3.0], dtype=mg.float64, requires_grad=True)
    rate = mg.tensor([2.0, 0.5], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (concentration, rate), seed=63)
