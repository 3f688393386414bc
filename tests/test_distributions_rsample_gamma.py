"""Reparameterized sampling of the gamma family, PyTorch's (``has_rsample`` is True for ``Gamma``, ``Chi2``,
``Beta``, ``Dirichlet`` and ``StudentT`` in torch 2.13; here ``rsample`` raised ``NotImplementedError``):
the implicit gradient of a given draw against torch's for the same draw value
(tests/data/make_torch_gamma_rsample.py records ``torch._standard_gamma_grad`` and
``torch._dirichlet_grad``), against central differences of the CDF relation ``dx/dalpha = -(dP/dalpha) /
density``, the gradient of ``rsample`` against the kernel for its draw, the gradients' means against the
derivative of the mean, the draws' moments and a KS statistic (the generators differ: statistics, never
bits), shapes, float32, the strict devices, ``mg.checkpoint.checkpoint`` and ``mg.func.grad``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D
from minigrad_ckpt.distributions.implicit_gradients import dirichlet_grad, standard_gamma_grad

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from sampling_statistics import assert_same_gradients_at_the_seams, ks_statistic  # noqa: E402

TORCH = np.load(DATA / "torch_gamma_rsample.npz")
DTYPES = {"float64": mg.float64, "float32": mg.float32}


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_the_gamma_gradient_of_a_given_draw_is_torchs(name):
    alpha, x = (mg.tensor(TORCH[f"gamma_{k}_{name}"]) for k in ("alpha", "x"))
    got = standard_gamma_grad(alpha, x)
    assert got.dtype == DTYPES[name]
    # torch computes in double and rounds to float32; the engine computes in the draw's own dtype
    rtol = 1e-12 if name == "float64" else 2e-4
    np.testing.assert_allclose(got.numpy(), TORCH[f"gamma_grad_{name}"], rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_the_dirichlet_gradient_of_a_given_draw_is_torchs(name):
    x, alpha, total = (mg.tensor(TORCH[f"dirichlet_{k}_{name}"]) for k in ("x", "alpha", "total"))
    got, want = dirichlet_grad(x, alpha, total).numpy(), TORCH[f"dirichlet_grad_{name}"]
    if name == "float64":
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-30)
        return
    # Where alpha and beta both pass 6 (Rice's expansion, whose terms cancel near the mean) torch's CPU
    # kernel computes in double, its CUDA kernel in float, as the engine does: there they part by 4%.
    a, b = alpha.numpy(), total.numpy() - alpha.numpy()
    mid = (a > 6) & (b > 6)
    np.testing.assert_allclose(got[~mid], want[~mid], rtol=2e-3, atol=1e-6)
    np.testing.assert_allclose(got[mid], want[mid], rtol=5e-2)


def test_the_gamma_gradient_keeps_the_cdf_of_the_draw():
    """``-(P(alpha + h, x) - P(alpha - h, x)) / 2h / density``: PyTorch's approximation is within 1e-3."""
    alpha, x = TORCH["gamma_alpha_float64"], TORCH["gamma_x_float64"]
    h = 1e-5 * alpha
    dp = (mg.special.gammainc(mg.tensor(alpha + h), mg.tensor(x))
          - mg.special.gammainc(mg.tensor(alpha - h), mg.tensor(x))).numpy() / (2 * h)
    density = D.Gamma(mg.tensor(alpha), 1.0).log_prob(mg.tensor(x)).exp().numpy()
    keep = density > 1e-200  # where the density underflows the relation reads 0/0
    got = standard_gamma_grad(mg.tensor(alpha), mg.tensor(x)).numpy()
    np.testing.assert_allclose(got[keep], (-dp / density)[keep], rtol=1e-3)


def test_torch_reparameterizes_the_family():
    got = [d.has_rsample for d in (D.Gamma(1.0, 1.0), D.Chi2(1.0), D.Beta(1.0, 1.0), D.Dirichlet(mg.ones(2)),
                                   D.StudentT(1.0))]
    assert got == list(TORCH["has_rsample"]) == [True] * 5


def test_gamma_rsample_differentiates_its_draw():
    mg.manual_seed(1)
    conc = mg.tensor([0.3, 1.0, 2.5, 12.0], dtype=mg.float64, requires_grad=True)
    rate = mg.tensor([1.0, 2.0, 0.5, 3.0], dtype=mg.float64, requires_grad=True)
    x = D.Gamma(conc, rate).rsample((5,))
    assert x.shape == (5, 4) and x.requires_grad
    x.sum().backward()
    draw = x.detach()
    want = (standard_gamma_grad(conc.detach().expand(5, 4), draw * rate.detach()) / rate.detach()).sum(0)
    np.testing.assert_allclose(conc.grad.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rate.grad.numpy(), (-draw / rate.detach()).sum(0).numpy(), rtol=1e-12)
    with mg.no_grad():
        assert not D.Gamma(conc, rate).sample((2,)).requires_grad


def test_dirichlet_rsample_backward_is_torchs_formula():
    """torch's ``_Dirichlet.backward``: ``_dirichlet_grad(x, c, total) * (g - sum(x * g))``."""
    mg.manual_seed(2)
    conc = mg.tensor([[0.3, 1.0, 2.5], [7.0, 9.0, 0.2]], dtype=mg.float64, requires_grad=True)
    x = D.Dirichlet(conc).rsample((4,))
    weights = mg.tensor(np.arange(24.0).reshape(4, 2, 3) / 7)
    (x * weights).sum().backward()
    c, draw = conc.detach().expand(4, 2, 3), x.detach()
    kernel = dirichlet_grad(draw, c, c.sum(-1, keepdim=True).expand(4, 2, 3))
    want = (kernel * (weights - (draw * weights).sum(-1, keepdim=True))).sum(0)
    np.testing.assert_allclose(conc.grad.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(draw.sum(-1).numpy(), 1.0, rtol=1e-12)


def _mean_gradients(make, params, n=40000, seed=3):
    """The mean over ``n`` draws of ``d draw / d param`` (one backward of the sum, divided by ``n``)."""
    mg.manual_seed(seed)
    make(*params).rsample((n,)).sum().backward()
    return [p.grad.numpy() / n for p in params]


def test_the_mean_gradient_is_the_gradient_of_the_mean():
    c, r = mg.tensor([0.4, 3.0], dtype=mg.float64, requires_grad=True), mg.tensor([2.0, 0.5], dtype=mg.float64,
                                                                                   requires_grad=True)
    gc, gr = _mean_gradients(D.Gamma, [c, r])
    np.testing.assert_allclose(gc, [0.5, 2.0], rtol=0.03)  # d(c/r)/dc = 1/r
    np.testing.assert_allclose(gr, [-0.1, -12.0], rtol=0.03)  # -c/r^2
    (df,) = _mean_gradients(D.Chi2, [mg.tensor([0.7, 4.0], dtype=mg.float64, requires_grad=True)])
    np.testing.assert_allclose(df, [1.0, 1.0], rtol=0.03)
    a, b = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in ([0.5, 3.0], [2.0, 1.2]))
    ga, gb = _mean_gradients(D.Beta, [a, b])
    total = np.array([2.5, 4.2])
    np.testing.assert_allclose(ga, np.array([2.0, 1.2]) / total ** 2, rtol=0.03)
    np.testing.assert_allclose(gb, -np.array([0.5, 3.0]) / total ** 2, rtol=0.03)
    loc, scale = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in ([1.0, -2.0], [2.0, 0.5]))
    mg.manual_seed(4)
    D.StudentT(6.0, loc, scale).rsample((40000,)).pow(2).mean(0).sum().backward()  # E x^2 = loc^2 + 1.5 scale^2
    np.testing.assert_allclose(loc.grad.numpy(), [2.0, -4.0], rtol=0.05, atol=0.05)
    np.testing.assert_allclose(scale.grad.numpy(), [6.0, 1.5], rtol=0.05)


def test_studentt_rsample_reaches_df_through_the_chi_square():
    df = mg.tensor([3.0, 8.0], dtype=mg.float64, requires_grad=True)
    mg.manual_seed(5)
    D.StudentT(df).rsample((40000,)).abs().mean(0).sum().backward()
    # E|t_df| = 2 sqrt(df) Gamma((df+1)/2) / (sqrt(pi) (df-1) Gamma(df/2)); its derivative by differences
    from math import gamma, pi, sqrt

    def mean_abs(v):
        return 2 * sqrt(v) * gamma((v + 1) / 2) / (sqrt(pi) * (v - 1) * gamma(v / 2))
    want = [(mean_abs(v + 1e-5) - mean_abs(v - 1e-5)) / 2e-5 for v in (3.0, 8.0)]
    np.testing.assert_allclose(df.grad.numpy(), want, rtol=0.15)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_the_draws_are_the_distribution(dtype):
    mg.manual_seed(6)
    conc = mg.tensor([0.2, 1.5, 30.0], dtype=dtype, requires_grad=True)
    x = D.Gamma(conc, 2.0).rsample((20000,))
    assert x.dtype == dtype and x.shape == (20000, 3)
    for i, c in enumerate([0.2, 1.5, 30.0]):
        draws = np.sort(x[:, i].detach().numpy().astype(np.float64))
        cdf = mg.special.gammainc(mg.tensor(c), mg.tensor(2 * draws)).numpy()
        assert ks_statistic(draws, cdf) < 0.015  # the 1% point of the KS statistic for n = 20000 is 0.0115
    beta = D.Beta(mg.tensor([0.5, 4.0], dtype=dtype), mg.tensor([0.5, 2.0], dtype=dtype)).rsample((20000,))
    np.testing.assert_allclose(beta.numpy().mean(0), [0.5, 2 / 3], atol=0.01)
    np.testing.assert_allclose(beta.numpy().var(0), [0.125, 8 / 252], rtol=0.05)
    t = D.StudentT(mg.tensor(5.0, dtype=dtype), 1.0, 2.0).rsample((20000,)).numpy()
    assert abs(np.median(t) - 1.0) < 0.05 and abs(t.var() / (4 * 5 / 3) - 1) < 0.1


def test_shapes_and_expand():
    c = mg.tensor([[1.0, 2.0, 3.0]] * 4, requires_grad=True)
    assert D.Dirichlet(c).rsample((2, 5)).shape == (2, 5, 4, 3)
    assert D.Dirichlet(c).expand((6, 4)).rsample().shape == (6, 4, 3)
    assert D.Beta(c[0], 1.0).rsample((2,)).shape == (2, 3)
    assert D.Gamma(c[0], 1.0).expand((5, 3)).rsample((2,)).shape == (2, 5, 3)
    assert D.Chi2(c[0]).rsample().shape == (3,) and D.StudentT(c[0]).rsample((7,)).shape == (7, 3)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    c = mg.tensor([0.5, 2.0, 12.0], dtype=dtype, device=device, requires_grad=True)
    total = (D.Gamma(c, 1.0).rsample((3,)).sum() + D.Dirichlet(c).rsample((2,)).pow(2).sum()
             + D.Beta(c, c + 1).rsample().sum() + D.StudentT(c).rsample().sum() + D.Chi2(c).rsample().sum()
             + D.FisherSnedecor(c, c + 4).rsample().sum())
    total.backward()
    assert str(c.grad.device).startswith(device) and c.grad.dtype == dtype
    assert bool(c.grad.isfinite().all().item())


def _loss(conc, rate):
    x = D.Gamma(conc, rate).rsample((6,))
    y = D.Dirichlet(conc).rsample((2,))
    return x.pow(2).sum() + (y * mg.arange(3, dtype=y.dtype)).sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    conc = mg.tensor([0.5, 2.0, 9.0], dtype=mg.float64, requires_grad=True)
    rate = mg.tensor([1.0, 0.5, 2.0], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (conc, rate), seed=7)


def test_fisher_snedecor_draws_and_their_gradient():
    """``FisherSnedecor`` (it was an AttributeError; torch's numbers are replayed by
    tests/test_distributions_transformed_families.py, case ``fisher_snedecor``): draws of ``Gamma(df1/2, df1) /
    Gamma(df2/2, df2)``, reparameterized in both."""
    df1 = mg.tensor([3.0, 8.0], dtype=mg.float64, requires_grad=True)
    df2 = mg.tensor([12.0, 30.0], dtype=mg.float64, requires_grad=True)
    d = D.FisherSnedecor(df1, df2)
    assert d.has_rsample and repr(D.FisherSnedecor(1.0, 2.0)) == "FisherSnedecor(df1: 1.0, df2: 2.0)"
    assert D.FisherSnedecor(1.0, 2.0).batch_shape == () and d.expand((3, 2)).rsample((4,)).shape == (4, 3, 2)
    mg.manual_seed(8)
    x = d.rsample((40000,))
    assert bool(d.support.check(x).all().item())
    np.testing.assert_allclose(x.detach().numpy().mean(0), d.mean.detach().numpy(), rtol=0.02)
    np.testing.assert_allclose(x.detach().numpy().var(0), d.variance.detach().numpy(), rtol=0.1)
    x.mean(0).sum().backward()  # E x = df2 / (df2 - 2): no dependence on df1, -2 / (df2 - 2)^2 on df2
    np.testing.assert_allclose(df1.grad.numpy(), [0.0, 0.0], atol=0.01)
    np.testing.assert_allclose(df2.grad.numpy(), [-2 / 100, -2 / 784], rtol=0.15)
    # torch: "Expected parameter concentration (Tensor of shape ()) of distribution Gamma(concentration: -0.5,
    # rate: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), ..." (its Gammas are checked first)
    with pytest.raises(ValueError, match=r"of distribution Gamma\(concentration: -0.5, rate: -1.0\)"):
        D.FisherSnedecor(mg.tensor(1.0), mg.tensor(-1.0))
