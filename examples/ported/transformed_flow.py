"""A normalizing flow built from ``torch.distributions`` pieces -- the pattern of the "flows with
``TransformedDistribution``" tutorials (and of Pyro's ``dist.TransformedDistribution`` examples) --
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/transformed_flow.py

Each coupling layer is a ``distributions.transforms.Transform`` subclass that is also an
``nn.Module`` (``_call``, ``_inverse``, ``log_abs_det_jacobian``, ``domain``/``codomain``,
``bijective``, ``event_dim``), alternating masks; the flow is ``TransformedDistribution(
Independent(Normal(0, 1), 1), [couplings..., AffineTransform(loc, scale, event_dim=1)])`` fitted by
maximum likelihood (``log_prob``) with ``Adam`` on two moons, then sampled from fixed base points
through ``ComposeTransform`` (``rsample`` draws them: two engines' generators differ), and ``inv`` checked.  Made small: 4 couplings of 16 hidden units, 64 points,
``--steps`` steps; ``--double`` runs in float64.  The lines that differ from the usual text are listed
in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.distributions as dist
import minigrad_ckpt.nn as nn
from local_data import make_moons
from minigrad_ckpt.distributions import constraints


class AffineCoupling(dist.transforms.Transform, nn.Module):
    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(self, mask, hidden=16):
        dist.transforms.Transform.__init__(self, cache_size=1)
        nn.Module.__init__(self)
        self.register_buffer("mask", mask)
        dim = mask.numel()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, 2 * dim))

    def __hash__(self):
        return nn.Module.__hash__(self)

    def _params(self, x_masked):
        log_s, t = self.net(x_masked).chunk(2, dim=-1)
        return mg.tanh(log_s) * (1 - self.mask), t * (1 - self.mask)

    def _call(self, x):
        log_s, t = self._params(x * self.mask)
        return x * self.mask + (1 - self.mask) * (x * mg.exp(log_s) + t)

    def _inverse(self, y):
        log_s, t = self._params(y * self.mask)
        return y * self.mask + (1 - self.mask) * ((y - t) * mg.exp(-log_s))

    def log_abs_det_jacobian(self, x, y):
        log_s, _ = self._params(x * self.mask)
        return log_s.sum(-1)


class Flow(nn.Module):
    def __init__(self, n_layers=4, dtype=mg.float32):
        super().__init__()
        masks = [mg.tensor([1.0, 0.0], dtype=dtype) if i % 2 == 0 else mg.tensor([0.0, 1.0], dtype=dtype)
                 for i in range(n_layers)]
        self.couplings = nn.ModuleList([AffineCoupling(m) for m in masks])
        self.loc = nn.Parameter(mg.zeros(2, dtype=dtype))
        self.log_scale = nn.Parameter(mg.zeros(2, dtype=dtype))
        self.register_buffer("base_loc", mg.zeros(2, dtype=dtype))
        self.register_buffer("base_scale", mg.ones(2, dtype=dtype))

    def distribution(self):
        base = dist.Independent(dist.Normal(self.base_loc, self.base_scale), 1)
        final = dist.transforms.AffineTransform(self.loc, self.log_scale.exp(), event_dim=1)
        return dist.TransformedDistribution(base, list(self.couplings) + [final])


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="a flow of distribution transforms")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    x, _ = make_moons(64, noise=0.05)
    data = mg.tensor(x, dtype=dtype)
    flow = Flow(dtype=dtype).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("flow", flow)
    optimizer = mg.optim.Adam(flow.parameters(), lr=1e-2)
    history = []
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = -flow.distribution().log_prob(data).mean()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"step {step}: nll {loss.item():.4f}")
    with mg.no_grad():
        d = flow.distribution()
        chain = dist.transforms.ComposeTransform(d.transforms)
        # samples from fixed base points (d.rsample((5,)) draws them: two engines' generators differ)
        eps = mg.linspace(-1.5, 1.5, 10, dtype=dtype).reshape(5, 2)
        samples = chain(eps)
        history += [samples.sum().item(), d.log_prob(samples).sum().item()]
        # the chain's inverse takes data back to the base space and forward again
        z = chain.inv(data[:8])
        history += [z.sum().item(), (chain(z) - data[:8]).abs().max().item() < 1e-4,
                    chain.log_abs_det_jacobian(z, chain(z)).sum().item()]
    return history, flow


if __name__ == "__main__":
    main()
