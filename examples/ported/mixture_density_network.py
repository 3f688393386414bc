"""A mixture density network on Bishop's toy inverse problem (Bishop, "Mixture Density Networks",
1994, and *Neural Networks for Pattern Recognition* 6.4; the PyTorch versions of hardmaru's
``mdn`` notebook and sagelywizard's ``pytorch-mdn``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/mixture_density_network.py --double

``x = y + 0.3 sin(2 pi y) + noise`` is a function of ``y``; its inverse, ``y`` from ``x``, is
many-valued, so the network predicts a mixture of Gaussians: ``pi`` by a softmax, ``sigma`` by
``exp``, ``mu`` as it is.  The negative log-likelihood is a ``logsumexp`` of the components' log
densities: the hand-written formula (the default) or ``distributions.Normal.log_prob``
(``--use-distributions``), with ``MixtureSameFamily`` as a check; samples are drawn with
``mg.multinomial`` (the component) and ``mg.normal`` (the value).  Sizes shrink (64 points, 8
hidden units, 3 components, a few Adam steps); the lines that differ are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
from minigrad_ckpt.distributions import Categorical, MixtureSameFamily, Normal

LOG2PI = math.log(2 * math.pi)


def bishop_data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.uniform(0.0, 1.0, (n, 1))
    x = y + 0.3 * np.sin(2 * np.pi * y) + rng.uniform(-0.1, 0.1, (n, 1))
    return x, y  # the inverse problem: predict y from x


class MDN(nn.Module):
    def __init__(self, n_hidden, n_gaussians):
        super(MDN, self).__init__()
        self.z_h = nn.Sequential(
            nn.Linear(1, n_hidden),
            nn.Tanh()
        )
        self.z_pi = nn.Linear(n_hidden, n_gaussians)
        self.z_sigma = nn.Linear(n_hidden, n_gaussians)
        self.z_mu = nn.Linear(n_hidden, n_gaussians)

    def forward(self, x):
        z_h = self.z_h(x)
        pi = nn.functional.softmax(self.z_pi(z_h), -1)
        sigma = mg.exp(self.z_sigma(z_h))
        mu = self.z_mu(z_h)
        return pi, sigma, mu


def log_gaussian(y, mu, sigma):
    """The components' log densities, written out."""
    return -mg.log(sigma) - 0.5 * LOG2PI - 0.5 * mg.pow((y.expand_as(sigma) - mu) / sigma, 2)


def mdn_loss_fn(pi, sigma, mu, y, use_distributions=False):
    if use_distributions:
        log_prob = Normal(loc=mu, scale=sigma).log_prob(y)
    else:
        log_prob = log_gaussian(y, mu, sigma)
    return -mg.logsumexp(mg.log(pi) + log_prob, dim=1).mean()


def mixture_nll(pi, sigma, mu, y):
    mix = MixtureSameFamily(Categorical(probs=pi), Normal(mu, sigma))
    return -mix.log_prob(y.squeeze(1)).mean()


def sample(pi, sigma, mu):
    """One y per row: a component drawn by its weight, then a value from that Gaussian."""
    k = mg.multinomial(pi, 1)                 # (N, 1): the component of each row
    mean = mu.gather(1, k).squeeze(1)
    std = sigma.gather(1, k).squeeze(1)
    return mg.normal(mean, std)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Mixture density network (Bishop)')
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--hidden', type=int, default=8)
    parser.add_argument('--gaussians', type=int, default=3)
    parser.add_argument('--use-distributions', action='store_true')
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    dtype = mg.float64 if args.double else mg.float32
    x_np, y_np = bishop_data(64)
    x = mg.from_numpy(x_np).to(dtype)
    y = mg.from_numpy(y_np).to(dtype)
    network = MDN(n_hidden=args.hidden, n_gaussians=args.gaussians).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', network)
    optimizer = optim.Adam(network.parameters(), lr=0.05)
    history = []
    for epoch in range(args.steps):
        pi, sigma, mu = network(x)
        loss = mdn_loss_fn(pi, sigma, mu, y, args.use_distributions)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f'epoch {epoch} nll {loss.item():.6f}')
    with mg.no_grad():
        x_test = mg.linspace(0.0, 1.0, 16, dtype=dtype).view(-1, 1)
        pi, sigma, mu = network(x_test)
        history.append(mixture_nll(pi, sigma, mu, x_test).item())
        history.append(mdn_loss_fn(pi, sigma, mu, x_test, not args.use_distributions).item())
        y_samples = sample(pi, sigma, mu)
        history.extend(y_samples.tolist())
    return history, network


if __name__ == '__main__':
    main()
