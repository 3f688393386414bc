"""A hand-written Neural ODE: rtqichen/torchdiffeq's ``examples/ode_demo.py`` (the spiral
``dy/dt = A y^3``, learned by an MLP of ``y^3``) with its ``odeint`` replaced by a fixed-step RK4 in
a Python loop (backprop through the solver), and FFJORD's (rtqichen/ffjord ``lib/layers/odefunc.py``)
divergence estimators for a continuous normalizing flow; ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/neural_ode.py --double
    python examples/ported/neural_ode.py --double --checkpoint   # each RK4 step under checkpoint

``--checkpoint`` recomputes each solver step in backward (``mg.utils.checkpoint.checkpoint``, which is ``mg.checkpoint.checkpoint``): the
gradients are the same bits.  The flow integrates ``[dz/dt, -tr(df/dz)]`` with Hutchinson's
estimator (a fixed Rademacher vector, ``autograd.grad(..., create_graph=True)``), trains on it,
and compares with the exact trace (``func.vmap(func.jacrev(...))``) and the brute-force one.
Sizes shrink (20 points, a batch of 4 windows of 5, 16 hidden units, 3 iterations); the lines that
differ are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
from minigrad_ckpt.utils.checkpoint import checkpoint

parser = argparse.ArgumentParser('ODE demo')
parser.add_argument('--data_size', type=int, default=20)
parser.add_argument('--batch_time', type=int, default=5)
parser.add_argument('--batch_size', type=int, default=4)
parser.add_argument('--niters', type=int, default=3)
parser.add_argument('--checkpoint', action='store_true')
parser.add_argument('--double', action='store_true')


class Lambda(nn.Module):
    def __init__(self, true_A):
        super().__init__()
        self.true_A = true_A

    def forward(self, t, y):
        return mg.mm(y**3, self.true_A)


class ODEFunc(nn.Module):
    def __init__(self, hidden=16):
        super(ODEFunc, self).__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Softplus(),
            nn.Linear(hidden, 2),
        )
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y**3)


def rk4_step(func, t, dt, y):
    k1 = func(t, y)
    k2 = func(t + dt / 2, y + dt * k1 / 2)
    k3 = func(t + dt / 2, y + dt * k2 / 2)
    k4 = func(t + dt, y + dt * k3)
    return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def odeint(func, y0, t, use_checkpoint=False):
    """``torchdiffeq.odeint(func, y0, t, method='rk4')`` with one RK4 step between the given times."""
    ys = [y0]
    y = y0
    for i in range(len(t) - 1):
        dt = t[i + 1] - t[i]
        if use_checkpoint:
            y = checkpoint(rk4_step, func, t[i], dt, y, use_reentrant=False)
        else:
            y = rk4_step(func, t[i], dt, y)
        ys.append(y)
    return mg.stack(ys)


def get_batch(true_y, t, args, rng):
    s = mg.from_numpy(rng.choice(np.arange(args.data_size - args.batch_time, dtype=np.int64), args.batch_size,
                                 replace=False))
    batch_y0 = true_y[s]  # (M, D)
    batch_t = t[:args.batch_time]  # (T)
    batch_y = mg.stack([true_y[s + i] for i in range(args.batch_time)], dim=0)  # (T, M, D)
    return batch_y0, batch_t, batch_y


# ------------------------------------------------------------------ FFJORD's divergences
def divergence_bf(dx, y):
    sum_diag = 0.
    for i in range(y.shape[1]):
        sum_diag += mg.autograd.grad(dx[:, i].sum(), y, create_graph=True)[0].contiguous()[:, i].contiguous()
    return sum_diag.contiguous()


def divergence_approx(f, y, e=None):
    e_dzdx = mg.autograd.grad(f, y, e, create_graph=True)[0]
    e_dzdx_e = e_dzdx * e
    approx_tr_dzdx = e_dzdx_e.view(y.shape[0], -1).sum(dim=1)
    return approx_tr_dzdx


def divergence_exact(func, t, y):
    """The Jacobian's trace, per sample, from ``func.jacrev`` under ``func.vmap``."""
    jac = mg.func.vmap(mg.func.jacrev(lambda z: func(t, z.unsqueeze(0)).squeeze(0)))(y)
    return jac.diagonal(dim1=-2, dim2=-1).sum(-1)


class CNFFunc(nn.Module):
    """FFJORD's ODEfunc: the state ``(z, logp)`` moves by ``(f(z), -tr(df/dz))``."""

    def __init__(self, diffeq, e):
        super().__init__()
        self.diffeq = diffeq
        self._e = e

    def forward(self, t, states):
        y = states[0]
        with mg.enable_grad():
            if not y.requires_grad:
                y.requires_grad_(True)
            dy = self.diffeq(t, y)
            divergence = divergence_approx(dy, y, e=self._e)
        return dy, -divergence.view(y.shape[0], 1)


def cnf_rk4(func, z, logp, t):
    """RK4 on the pair ``(z, logp)`` (torchdiffeq integrates a tuple state the same way)."""
    for i in range(len(t) - 1):
        dt = t[i + 1] - t[i]
        k1 = func(t[i], (z, logp))
        k2 = func(t[i] + dt / 2, (z + dt * k1[0] / 2, logp + dt * k1[1] / 2))
        k3 = func(t[i] + dt / 2, (z + dt * k2[0] / 2, logp + dt * k2[1] / 2))
        k4 = func(t[i] + dt, (z + dt * k3[0], logp + dt * k3[1]))
        z = z + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        logp = logp + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return z, logp


def standard_normal_logprob(z):
    logZ = -0.5 * math.log(2 * math.pi)
    return logZ - z.pow(2) / 2


def main(argv=None, init=None):
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    true_y0 = mg.tensor([[2., 0.]], dtype=dtype)
    t = mg.linspace(0., 2., args.data_size, dtype=dtype)
    true_A = mg.tensor([[-0.1, 2.0], [-2.0, -0.1]], dtype=dtype)
    with mg.no_grad():
        true_y = odeint(Lambda(true_A), true_y0, t)
    func = ODEFunc().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('func', func)
    optimizer = optim.RMSprop(func.parameters(), lr=1e-3)
    history = []
    for itr in range(1, args.niters + 1):
        optimizer.zero_grad()
        batch_y0, batch_t, batch_y = get_batch(true_y, t, args, rng)
        pred_y = odeint(func, batch_y0, batch_t, args.checkpoint)
        loss = mg.mean(mg.abs(pred_y - batch_y))
        loss.backward()
        grads = [p.grad.clone() for p in func.parameters()]
        optimizer.step()
        history.append(loss.item())
        history.extend(g.norm().item() for g in grads)
        print('Iter {:04d} | Total Loss {:.6f}'.format(itr, loss.item()))
    with mg.no_grad():
        pred_y = odeint(func, true_y0, t)
        history.append(mg.mean(mg.abs(pred_y - true_y)).item())

    # the continuous normalizing flow: likelihoods of points under the flow of a fresh dynamics
    diffeq = ODEFunc(hidden=8).to(dtype)
    if init is not None:
        init('diffeq', diffeq)
    x = mg.from_numpy(rng.standard_normal((6, 2))).to(dtype)
    e = mg.from_numpy(rng.choice(np.array([-1.0, 1.0]), size=(6, 2))).to(dtype)  # Rademacher
    cnf = CNFFunc(diffeq, e)
    cnf_optimizer = optim.Adam(diffeq.parameters(), lr=1e-2)
    t_flow = mg.tensor([0., 0.25, 0.5], dtype=dtype)
    for itr in range(2):
        cnf_optimizer.zero_grad()
        z, delta_logp = cnf_rk4(cnf, x, mg.zeros(x.shape[0], 1, dtype=dtype), t_flow)
        logpz = standard_normal_logprob(z).sum(1, keepdim=True)
        loss = -(logpz - delta_logp).mean()
        loss.backward()
        cnf_optimizer.step()
        history.append(loss.item())
    y = x.clone().requires_grad_(True)
    dy = diffeq(0., y)
    history.extend(divergence_bf(dy, y).tolist())
    history.extend(divergence_approx(dy, y, e=e).tolist())
    history.extend(divergence_exact(diffeq, 0., x).tolist())
    return history, (func, diffeq)


if __name__ == '__main__':
    main()
