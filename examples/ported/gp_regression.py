"""Exact Gaussian-process regression written in plain PyTorch, as the common from-scratch tutorials and
GPyTorch's "Simple GP Regression" example do it, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/gp_regression.py

An RBF kernel with a learned length scale, output scale and noise (``softplus`` of raw parameters, as
GPyTorch constrains them), the negative log marginal likelihood through ``linalg.cholesky``,
``cholesky_solve`` and the factor's diagonal (checked against ``logdet`` and
``distributions.MultivariateNormal``), ``Adam`` on the raw parameters, and the predictive mean and
variance through ``linalg.solve_triangular``.  Made small: 12 noisy training points of ``sin(2 pi x)``
(GPyTorch's example has 100), 8 test points, ``--iters`` steps (the example: 50); ``--double`` runs in
float64 (GPs usually do).  The lines that differ from the usual text are listed in ``README.md``.
"""

import argparse
import math

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


class ExactGPModel(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_x, self.train_y = train_x, train_y
        self.raw_lengthscale = nn.Parameter(mg.zeros(1, dtype=train_x.dtype))
        self.raw_outputscale = nn.Parameter(mg.zeros(1, dtype=train_x.dtype))
        self.raw_noise = nn.Parameter(mg.zeros(1, dtype=train_x.dtype))
        self.mean_constant = nn.Parameter(mg.zeros(1, dtype=train_x.dtype))

    @property
    def lengthscale(self):
        return F.softplus(self.raw_lengthscale)

    @property
    def outputscale(self):
        return F.softplus(self.raw_outputscale)

    @property
    def noise(self):
        return F.softplus(self.raw_noise) + 1e-4

    def kernel(self, a, b):
        sqdist = mg.cdist(a / self.lengthscale, b / self.lengthscale).pow(2)
        return self.outputscale * mg.exp(-0.5 * sqdist)

    def forward(self):
        """The negative log marginal likelihood of the training data, divided by their count."""
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.noise * mg.eye(n, dtype=self.train_x.dtype)
        L = mg.linalg.cholesky(K)
        resid = (self.train_y - self.mean_constant).unsqueeze(-1)
        alpha = mg.cholesky_solve(resid, L)
        nll = 0.5 * (resid * alpha).sum() + mg.log(mg.diagonal(L)).sum() + 0.5 * n * math.log(2 * math.pi)
        return nll / n, K

    @mg.no_grad()
    def predict(self, test_x):
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.noise * mg.eye(n, dtype=self.train_x.dtype)
        L = mg.linalg.cholesky(K)
        K_s = self.kernel(self.train_x, test_x)
        alpha = mg.cholesky_solve((self.train_y - self.mean_constant).unsqueeze(-1), L)
        mean = self.mean_constant + (K_s.T @ alpha).squeeze(-1)
        v = mg.linalg.solve_triangular(L, K_s, upper=False)
        var = self.outputscale - (v * v).sum(0)
        return mean, var


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="exact GP regression")
    parser.add_argument("--iters", type=int, default=6)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    # Training data is 12 points in [0,1] inclusive regularly spaced
    train_x = mg.linspace(0, 1, 12, dtype=dtype).unsqueeze(-1)
    # True function is sin(2*pi*x) with a fixed "noise" pattern
    train_y = mg.sin(train_x.squeeze(-1) * (2 * math.pi)) + 0.1 * mg.cos(mg.arange(12, dtype=dtype) * 2.3)
    model = ExactGPModel(train_x, train_y)
    if init is not None:  # a test hook: records or loads the starting weights
        init("model", model)
    optimizer = mg.optim.Adam(model.parameters(), lr=0.1)
    history = []
    for i in range(args.iters):
        optimizer.zero_grad()
        loss, K = model()
        loss.backward()
        print(f"Iter {i + 1}/{args.iters} - Loss: {loss.item():.3f}   lengthscale: {model.lengthscale.item():.3f}"
              f"   noise: {model.noise.item():.3f}")
        optimizer.step()
        history.append(loss.item())
    # the same likelihood by logdet and by MultivariateNormal (checks, not in the tutorials)
    with mg.no_grad():
        loss, K = model()
        n = train_x.shape[0]
        resid = train_y - model.mean_constant
        by_logdet = 0.5 * (resid @ mg.linalg.solve(K, resid) + mg.logdet(K) + n * math.log(2 * math.pi)) / n
        mvn = mg.distributions.MultivariateNormal(model.mean_constant.expand(n), covariance_matrix=K)
        history += [loss.item(), by_logdet.item(), -mvn.log_prob(train_y).item() / n]
    test_x = mg.linspace(-0.1, 1.1, 8, dtype=dtype).unsqueeze(-1)
    mean, var = model.predict(test_x)
    history += mean.tolist() + var.tolist()
    return history, model


if __name__ == "__main__":
    main()
