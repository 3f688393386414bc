"""Record torch's implicit gradients of gamma and Dirichlet draws (``torch._standard_gamma_grad``,
``torch._dirichlet_grad``) on grids of given draws that reach every region of their approximations,
in float64 and float32: ``python tests/data/make_torch_gamma_rsample.py`` (offline; needs torch) writes
torch_gamma_rsample.npz, which tests/test_distributions_rsample_gamma.py compares with.  The draws are
given, not drawn, so the engine's gradient for the same draw value is compared."""

from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).parent


def gamma_grid():
    """alpha from 0.02 to 400 and x at quantile-like spots around each: x < 0.8 (Taylor), alpha > 8
    near and far from the mean (Rice), and the rational fit between."""
    rng = np.random.default_rng(20261205)
    alpha = np.exp(rng.uniform(np.log(0.02), np.log(400.0), 300))
    x = np.maximum(rng.gamma(alpha), 1e-30)
    near = alpha[alpha > 8] * rng.uniform(0.92, 1.08, (alpha > 8).sum())  # Rice's polynomial region
    return np.concatenate([alpha, alpha[alpha > 8]]), np.concatenate([x, near])


def dirichlet_grid():
    """Beta marginals: alpha, beta from 0.05 to 60, x drawn from each (every region of dirichlet_grad_one)."""
    rng = np.random.default_rng(5)
    alpha = np.exp(rng.uniform(np.log(0.05), np.log(60.0), 300))
    beta = np.exp(rng.uniform(np.log(0.05), np.log(60.0), 300))
    x = np.clip(rng.beta(alpha, beta), 1e-30, 1 - 1e-7)
    return x, alpha, alpha + beta


def main():
    out = {}
    alpha, x = gamma_grid()
    x_d, alpha_d, total_d = dirichlet_grid()
    for name, dt in (("float64", torch.float64), ("float32", torch.float32)):
        a, v = torch.tensor(alpha, dtype=dt), torch.tensor(x, dtype=dt)
        out[f"gamma_alpha_{name}"], out[f"gamma_x_{name}"] = a.numpy(), v.numpy()
        out[f"gamma_grad_{name}"] = torch._standard_gamma_grad(a, v).numpy()
        xd, ad, td = (torch.tensor(t, dtype=dt) for t in (x_d, alpha_d, total_d))
        out[f"dirichlet_x_{name}"], out[f"dirichlet_alpha_{name}"] = xd.numpy(), ad.numpy()
        out[f"dirichlet_total_{name}"] = td.numpy()
        out[f"dirichlet_grad_{name}"] = torch._dirichlet_grad(xd, ad, td).numpy()
    # has_rsample of the families (torch 2.13)
    d = torch.distributions
    flags = [d.Gamma(1.0, 1.0), d.Chi2(1.0), d.Beta(1.0, 1.0), d.Dirichlet(torch.ones(2)), d.StudentT(1.0)]
    out["has_rsample"] = np.array([f.has_rsample for f in flags])
    np.savez(HERE / "torch_gamma_rsample.npz", **out)


if __name__ == "__main__":
    main()
