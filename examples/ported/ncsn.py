"""ermongroup's ``ncsn`` (score matching: ``losses/dsm.py``, ``losses/sliced_sm.py``, the annealed
Langevin dynamics of ``runners/anneal_runner.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/ncsn.py --loss ssm_vr

Noise-conditional score networks on 2-D data: a score network of ``Linear`` and ``Softplus`` layers
whose noise level scales its output (an ``nn.Embedding`` of the level, as the toy runners' ``gamma``),
trained by denoising score matching (one noise level, or annealed over a geometric ``sigmas`` with
``randint`` labels) or by sliced score matching -- ``autograd.grad(..., create_graph=True)`` of the
projected score, so the loss differentiates a gradient -- in its plain and variance-reduced forms;
Adam; then annealed Langevin dynamics (``randn_like`` noise, step sizes by level) under ``no_grad``.
Made small: 32 points, width 32, 4 noise levels, 3 steps, 2 Langevin steps a level; the lines
that differ are listed in ``README.md``.
"""

import argparse

import numpy as np
from local_data import default_dtype, make_moons

import minigrad_ckpt as mg
import minigrad_ckpt.autograd as autograd
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim


# ------------------------------------------------------------------ losses/dsm.py
def dsm_score_estimation(scorenet, samples, sigma=0.01):
    perturbed_samples = samples + mg.randn_like(samples) * sigma
    target = - 1 / (sigma ** 2) * (perturbed_samples - samples)
    scores = scorenet(perturbed_samples)
    target = target.view(target.shape[0], -1)
    scores = scores.view(scores.shape[0], -1)
    loss = 1 / 2. * ((scores - target) ** 2).sum(dim=-1).mean(dim=0)
    return loss


def anneal_dsm_score_estimation(scorenet, samples, labels, sigmas, anneal_power=2.):
    used_sigmas = sigmas[labels].view(samples.shape[0], *([1] * len(samples.shape[1:])))
    perturbed_samples = samples + mg.randn_like(samples) * used_sigmas
    target = - 1 / (used_sigmas ** 2) * (perturbed_samples - samples)
    scores = scorenet(perturbed_samples, labels)
    target = target.view(target.shape[0], -1)
    scores = scores.view(scores.shape[0], -1)
    loss = 1 / 2. * ((scores - target) ** 2).sum(dim=-1) * used_sigmas.squeeze() ** anneal_power
    return loss.mean(dim=0)


# ------------------------------------------------------------------ losses/sliced_sm.py
def sliced_score_estimation(score_net, samples, n_particles=1):
    dup_samples = samples.unsqueeze(0).expand(n_particles, *samples.shape).contiguous().view(-1, *samples.shape[1:])
    dup_samples.requires_grad_(True)
    vectors = mg.randn_like(dup_samples)
    vectors = vectors / mg.norm(vectors, dim=-1, keepdim=True)
    grad1 = score_net(dup_samples)
    gradv = mg.sum(grad1 * vectors)
    loss1 = mg.sum(grad1 * vectors, dim=-1) ** 2 * 0.5
    grad2 = autograd.grad(gradv, dup_samples, create_graph=True)[0]
    loss2 = mg.sum(vectors * grad2, dim=-1)
    loss1 = loss1.view(n_particles, -1).mean(dim=0)
    loss2 = loss2.view(n_particles, -1).mean(dim=0)
    loss = loss1 + loss2
    return loss.mean(), loss1.mean(), loss2.mean()


def sliced_score_estimation_vr(score_net, samples, n_particles=1):
    """Be careful if the shape of samples is not B x x_dim!!!!"""
    dup_samples = samples.unsqueeze(0).expand(n_particles, *samples.shape).contiguous().view(-1, *samples.shape[1:])
    dup_samples.requires_grad_(True)
    vectors = mg.randn_like(dup_samples)
    grad1 = score_net(dup_samples)
    gradv = mg.sum(grad1 * vectors)
    loss1 = mg.sum(grad1 * grad1, dim=-1) / 2.
    grad2 = autograd.grad(gradv, dup_samples, create_graph=True)[0]
    loss2 = mg.sum(vectors * grad2, dim=-1)
    loss1 = loss1.view(n_particles, -1).mean(dim=0)
    loss2 = loss2.view(n_particles, -1).mean(dim=0)
    loss = loss1 + loss2
    return loss.mean(), loss1.mean(), loss2.mean()


# ------------------------------------------------------------------ the toy score network
class ScoreNet(nn.Module):
    """An MLP with a per-noise-level output scale (``gamma``), as the runners' toy networks."""

    def __init__(self, width=32, num_classes=None):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, width), nn.Softplus(), nn.Linear(width, width), nn.Softplus(),
                                 nn.Linear(width, 2))
        self.gamma = nn.Embedding(num_classes, 1) if num_classes else None

    def forward(self, x, y=None):
        out = self.net(x)
        if y is not None:
            out = out * self.gamma(y)
        return out


# ------------------------------------------------------------------ runners/anneal_runner.py
def anneal_Langevin_dynamics(x_mod, scorenet, sigmas, n_steps_each=100, step_lr=0.00002):
    images = []
    with mg.no_grad():
        for c, sigma in enumerate(sigmas):
            labels = mg.ones(x_mod.shape[0], device=x_mod.device) * c
            labels = labels.long()
            step_size = step_lr * (sigma / sigmas[-1]) ** 2
            for s in range(n_steps_each):
                images.append(mg.clamp(x_mod, -4.0, 4.0).to('cpu'))
                noise = mg.randn_like(x_mod) * np.sqrt(step_size * 2)
                grad = scorenet(x_mod, labels)
                x_mod = x_mod + step_size * grad + noise
        return images


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--loss', default='anneal_dsm', choices=['dsm', 'anneal_dsm', 'ssm', 'ssm_vr'])
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--n-particles', type=int, default=2)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    with default_dtype(args.double):
        return train_score_network(args, init)


def train_score_network(args, init):
    mg.manual_seed(0)
    sigma_begin, sigma_end, num_classes = 1.0, 0.05, 4
    sigmas = mg.tensor(np.exp(np.linspace(np.log(sigma_begin), np.log(sigma_end), num_classes)))
    sigmas = sigmas.to(mg.get_default_dtype())
    anneal = args.loss == 'anneal_dsm'
    score = ScoreNet(num_classes=num_classes if anneal else None)
    if init is not None:  # a test hook: records or loads the starting weights
        init('score', score)
    optimizer = optim.Adam(score.parameters(), lr=1e-3, weight_decay=0.000, betas=(0.9, 0.999))
    history = []
    for step in range(args.steps):
        X = mg.from_numpy(make_moons(n_samples=32, noise=.05, seed=step)[0]).to(mg.get_default_dtype())
        if args.loss == 'dsm':
            loss = dsm_score_estimation(score, X, sigma=0.1)
        elif anneal:
            labels = mg.randint(0, len(sigmas), (X.shape[0],), device=X.device)
            loss = anneal_dsm_score_estimation(score, X, labels, sigmas, 2.)
        elif args.loss == 'ssm':
            loss, *_ = sliced_score_estimation(score, X, n_particles=args.n_particles)
        else:
            loss, *_ = sliced_score_estimation_vr(score, X, n_particles=args.n_particles)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    if anneal:
        x = mg.rand(8, 2) * 2 - 1
        images = anneal_Langevin_dynamics(x, score, sigmas.cpu().numpy(), n_steps_each=2, step_lr=0.01)
        history += [img.sum().item() for img in images]
    return history, score


if __name__ == '__main__':
    print(main()[0])
