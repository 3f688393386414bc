"""Two RealNVP normalizing flows on 2-D moons, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/realnvp.py --model realnvp
    python examples/ported/realnvp.py --model affine-half --double

``--model realnvp`` is senya-ashukha's ``real-nvp-pytorch`` notebook: affine coupling layers by
masks (a parameter that does not require grad), ``nn.Tanh``-bounded log-scales, the log-determinant
summed per layer, a ``MultivariateNormal`` base, Adam and ``backward(retain_graph=True)``.
``--model affine-half`` is karpathy's ``pytorch-normalizing-flows`` (``nflib/flows.py``):
``ActNorm`` initialized from the first batch through ``.data``, ``AffineHalfFlow`` coupling on
strided halves (``x[:, ::2]``), the flows reversed by ``self.flows[::-1]``, a logistic base
(``TransformedDistribution(Uniform, SigmoidTransform().inv)``), Adam with weight decay.  Both
check the log-likelihood, its inverse (sampling) path and ``x == g(f(x))``.  Made small: widths 16,
3 or 4 steps; the lines that differ are listed in ``README.md``.
"""

import argparse
import itertools

import numpy as np
from local_data import default_dtype, make_moons

import minigrad_ckpt as mg
from minigrad_ckpt import distributions, nn
from minigrad_ckpt.distributions import TransformedDistribution, Uniform
from minigrad_ckpt.distributions.transforms import SigmoidTransform


# ------------------------------------------------------------------ senya-ashukha/real-nvp-pytorch
class RealNVP(nn.Module):
    def __init__(self, nets, nett, mask, prior):
        super(RealNVP, self).__init__()
        self.prior = prior
        self.mask = nn.Parameter(mask, requires_grad=False)
        self.t = mg.nn.ModuleList([nett() for _ in range(len(mask))])
        self.s = mg.nn.ModuleList([nets() for _ in range(len(mask))])

    def g(self, z):
        x = z
        for i in range(len(self.t)):
            x_ = x*self.mask[i]
            s = self.s[i](x_)*(1 - self.mask[i])
            t = self.t[i](x_)*(1 - self.mask[i])
            x = x_ + (1 - self.mask[i]) * (x * mg.exp(s) + t)
        return x

    def f(self, x):
        log_det_J, z = x.new_zeros(x.shape[0]), x
        for i in reversed(range(len(self.t))):
            z_ = self.mask[i] * z
            s = self.s[i](z_) * (1-self.mask[i])
            t = self.t[i](z_) * (1-self.mask[i])
            z = (1 - self.mask[i]) * (z - t) * mg.exp(-s) + z_
            log_det_J -= s.sum(dim=1)
        return z, log_det_J

    def log_prob(self, x):
        z, logp = self.f(x)
        return self.prior.log_prob(z) + logp

    def sample(self, batchSize):
        z = self.prior.sample((batchSize, 1))
        logp = self.prior.log_prob(z)
        x = self.g(z)
        return x, logp


def realnvp(args, init):
    mg.manual_seed(0)
    width = 16
    nets = lambda: nn.Sequential(nn.Linear(2, width), nn.LeakyReLU(), nn.Linear(width, width), nn.LeakyReLU(),  # noqa: E731
                                 nn.Linear(width, 2), nn.Tanh())
    nett = lambda: nn.Sequential(nn.Linear(2, width), nn.LeakyReLU(), nn.Linear(width, width), nn.LeakyReLU(),  # noqa: E731
                                 nn.Linear(width, 2))
    masks = mg.from_numpy(np.array([[0, 1], [1, 0]] * 3).astype(np.float32)).to(mg.get_default_dtype())
    prior = distributions.MultivariateNormal(mg.zeros(2), mg.eye(2))
    flow = RealNVP(nets, nett, masks, prior)
    if init is not None:  # a test hook: records or loads the starting weights
        init('flow', flow)
    optimizer = mg.optim.Adam([p for p in flow.parameters() if p.requires_grad==True], lr=1e-3)  # noqa: E712
    history = []
    for t in range(args.steps):
        noisy_moons = make_moons(n_samples=32, noise=.05, seed=t)[0].astype(np.float32)
        loss = -flow.log_prob(mg.from_numpy(noisy_moons).to(mg.get_default_dtype())).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
        history.append(loss.item())
    x = mg.from_numpy(make_moons(n_samples=8, noise=.05, seed=99)[0]).to(mg.get_default_dtype())
    with mg.no_grad():
        z, logp = flow.f(x)
        history.append((flow.g(z) - x).abs().max().item())  # the inverse undoes the forward
        samples, logp = flow.sample(5)
        history.extend([*samples.shape, samples.sum().item(), logp.sum().item()])
    return history, flow


# ------------------------------------------------------------------ karpathy/pytorch-normalizing-flows
class AffineConstantFlow(nn.Module):
    """Scales and shifts the flow by learned constants per dimension (the ActNorm paper's layer)."""

    def __init__(self, dim, scale=True, shift=True):
        super().__init__()
        self.s = nn.Parameter(mg.randn(1, dim, requires_grad=True)) if scale else None
        self.t = nn.Parameter(mg.randn(1, dim, requires_grad=True)) if shift else None

    def forward(self, x):
        s = self.s if self.s is not None else x.new_zeros(x.size())
        t = self.t if self.t is not None else x.new_zeros(x.size())
        z = x * mg.exp(s) + t
        log_det = mg.sum(s, dim=1)
        return z, log_det

    def backward(self, z):
        s = self.s if self.s is not None else z.new_zeros(z.size())
        t = self.t if self.t is not None else z.new_zeros(z.size())
        x = (z - t) * mg.exp(-s)
        log_det = mg.sum(-s, dim=1)
        return x, log_det


class ActNorm(AffineConstantFlow):
    """AffineConstantFlow initialized from the first batch: zero mean, unit variance per dimension."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.data_dep_init_done = False

    def forward(self, x):
        # first batch is used for init
        if not self.data_dep_init_done:
            assert self.s is not None and self.t is not None  # for now
            self.s.data = (-mg.log(x.std(dim=0, keepdim=True))).detach()
            self.t.data = (-(x * mg.exp(self.s)).mean(dim=0, keepdim=True)).detach()
            self.data_dep_init_done = True
        return super().forward(x)


class MLP(nn.Module):
    """a simple 4-layer MLP"""

    def __init__(self, nin, nout, nh):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(nin, nh), nn.LeakyReLU(0.2),
            nn.Linear(nh, nh), nn.LeakyReLU(0.2),
            nn.Linear(nh, nh), nn.LeakyReLU(0.2),
            nn.Linear(nh, nout),
        )

    def forward(self, x):
        return self.net(x)


class AffineHalfFlow(nn.Module):
    """As seen in RealNVP: the even dimensions transform the odd ones (or back, by ``parity``)."""

    def __init__(self, dim, parity, net_class=MLP, nh=24, scale=True, shift=True):
        super().__init__()
        self.dim = dim
        self.parity = parity
        self.s_cond = lambda x: x.new_zeros(x.size(0), self.dim // 2)
        self.t_cond = lambda x: x.new_zeros(x.size(0), self.dim // 2)
        if scale:
            self.s_cond = net_class(self.dim // 2, self.dim // 2, nh)
        if shift:
            self.t_cond = net_class(self.dim // 2, self.dim // 2, nh)

    def forward(self, x):
        x0, x1 = x[:, ::2], x[:, 1::2]
        if self.parity:
            x0, x1 = x1, x0
        s = self.s_cond(x0)
        t = self.t_cond(x0)
        z0 = x0  # untouched half
        z1 = mg.exp(s) * x1 + t  # transform this half as a function of the other
        if self.parity:
            z0, z1 = z1, z0
        z = mg.cat([z0, z1], dim=1)
        log_det = mg.sum(s, dim=1)
        return z, log_det

    def backward(self, z):
        z0, z1 = z[:, ::2], z[:, 1::2]
        if self.parity:
            z0, z1 = z1, z0
        s = self.s_cond(z0)
        t = self.t_cond(z0)
        x0 = z0  # this was the same
        x1 = (z1 - t) * mg.exp(-s)  # reverse the transform on this half
        if self.parity:
            x0, x1 = x1, x0
        x = mg.cat([x0, x1], dim=1)
        log_det = mg.sum(-s, dim=1)
        return x, log_det


class NormalizingFlow(nn.Module):
    """A sequence of Normalizing Flows is a Normalizing Flow"""

    def __init__(self, flows):
        super().__init__()
        self.flows = nn.ModuleList(flows)

    def forward(self, x):
        m, _ = x.shape
        log_det = mg.zeros(m)
        zs = [x]
        for flow in self.flows:
            x, ld = flow.forward(x)
            log_det += ld
            zs.append(x)
        return zs, log_det

    def backward(self, z):
        m, _ = z.shape
        log_det = mg.zeros(m)
        xs = [z]
        for flow in self.flows[::-1]:
            z, ld = flow.backward(z)
            log_det += ld
            xs.append(z)
        return xs, log_det


class NormalizingFlowModel(nn.Module):
    """A Normalizing Flow Model is a (prior, flow) pair"""

    def __init__(self, prior, flows):
        super().__init__()
        self.prior = prior
        self.flow = NormalizingFlow(flows)

    def forward(self, x):
        zs, log_det = self.flow.forward(x)
        prior_logprob = self.prior.log_prob(zs[-1]).view(x.size(0), -1).sum(1)
        return zs, prior_logprob, log_det

    def backward(self, z):
        xs, log_det = self.flow.backward(z)
        return xs, log_det

    def sample(self, num_samples):
        z = self.prior.sample((num_samples,))
        xs, _ = self.flow.backward(z)
        return xs


def affine_half(args, init):
    mg.manual_seed(0)
    prior = TransformedDistribution(Uniform(mg.zeros(2), mg.ones(2)), SigmoidTransform().inv)  # Logistic
    flows = [AffineHalfFlow(dim=2, parity=i % 2, nh=16) for i in range(4)]
    norms = [ActNorm(dim=2) for _ in flows]
    flows = list(itertools.chain(*zip(norms, flows)))
    model = NormalizingFlowModel(prior, flows)
    if init is not None:
        init('model', model)
    optimizer = mg.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
    model.train()
    history = []
    for k in range(args.steps):
        x = mg.from_numpy(make_moons(n_samples=32, noise=.05, seed=k)[0].astype(np.float32))
        x = x.to(mg.get_default_dtype())
        zs, prior_logprob, log_det = model(x)
        logprob = prior_logprob + log_det
        loss = -mg.sum(logprob)  # NLL
        model.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    model.eval()
    x = mg.from_numpy(make_moons(n_samples=8, noise=.05, seed=99)[0]).to(mg.get_default_dtype())
    with mg.no_grad():
        zs, prior_logprob, _ = model(x)
        xs, _ = model.backward(zs[-1])
        history.append((xs[-1] - x).abs().max().item())
        zs = model.sample(6)
        history.extend([len(zs), *zs[-1].shape, zs[-1].sum().item(), prior_logprob.sum().item()])
    return history, model


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--model', default='realnvp', choices=['realnvp', 'affine-half'])
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    with default_dtype(args.double):
        return (realnvp if args.model == 'realnvp' else affine_half)(args, init)


if __name__ == '__main__':
    print(main()[0])
