"""MAML on sinusoid regression (Finn et al., 2017): the meta-learning step of dragen1860's
``MAML-Pytorch`` (fast weights from ``autograd.grad(..., create_graph=True)``, a second-order outer
gradient) and of functorch's ``examples/maml_regression/evjang_transforms_module.py`` (the same step by
``func.functional_call``, ``func.grad`` and ``func.vmap`` over the tasks); ported to minigrad_ckpt by
a mechanical rename.

    python examples/ported/maml.py --double                 # the fast-weights step
    python examples/ported/maml.py --double --functional    # the torch.func step

Sizes shrink (a 1-16-16-1 network, 3 tasks of 5 support and 5 query points, 3 meta-iterations, one
or two inner steps); the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.func import functional_call, grad, vmap


class ThreeLayerNet(nn.Module):
    def __init__(self, hidden=16):
        super(ThreeLayerNet, self).__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(hidden, hidden)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        x = self.relu2(x)
        x = self.fc3(x)
        return x


def sample_tasks(rng, outer_batch_size, inner_batch_size):
    # Select amplitude and phase for the task
    As = []
    phases = []
    for _ in range(outer_batch_size):
        As.append(rng.uniform(low=0.1, high=.5))
        phases.append(rng.uniform(low=0., high=np.pi))

    def get_batch():
        xs, ys = [], []
        for A, phase in zip(As, phases):
            x = rng.uniform(low=-5., high=5., size=(inner_batch_size, 1))
            y = A * np.sin(x + phase)
            xs.append(x)
            ys.append(y)
        return np.stack(xs), np.stack(ys)
    x1, y1 = get_batch()
    x2, y2 = get_batch()
    return x1, y1, x2, y2


# ------------------------------------------------------------ MAML-Pytorch's fast weights
def net_with(vars, x):
    """The network run with the given weights (MAML-Pytorch's ``Learner.forward(x, vars)``)."""
    w1, b1, w2, b2, w3, b3 = vars
    x = F.relu(F.linear(x, w1, b1))
    x = F.relu(F.linear(x, w2, b2))
    return F.linear(x, w3, b3)


def maml_step(net, x_spt, y_spt, x_qry, y_qry, update_lr, update_step):
    task_num = x_spt.size(0)
    losses_q = 0
    for i in range(task_num):
        vars = list(net.parameters())
        logits = net_with(vars, x_spt[i])
        loss = F.mse_loss(logits, y_spt[i])
        grad_ = mg.autograd.grad(loss, vars, create_graph=True)
        fast_weights = list(map(lambda p: p[1] - update_lr * p[0], zip(grad_, vars)))
        for k in range(1, update_step):
            logits = net_with(fast_weights, x_spt[i])
            loss = F.mse_loss(logits, y_spt[i])
            grad_ = mg.autograd.grad(loss, fast_weights, create_graph=True)
            fast_weights = list(map(lambda p: p[1] - update_lr * p[0], zip(grad_, fast_weights)))
        logits_q = net_with(fast_weights, x_qry[i])
        losses_q = losses_q + F.mse_loss(logits_q, y_qry[i])
    return losses_q / task_num


# ------------------------------------------------------------ functorch's MAML
def functional_maml_loss(net, params, x1, y1, x2, y2, alpha, update_step):
    def loss(params, x, y):
        return F.mse_loss(functional_call(net, params, (x,)), y)

    def get_loss_for_task(x1, y1, x2, y2):
        new_params = params
        for _ in range(update_step):
            grads = grad(loss)(new_params, x1, y1)
            new_params = {k: new_params[k] - alpha * grads[k] for k in new_params}
        return loss(new_params, x2, y2)

    task_losses = vmap(get_loss_for_task)(x1, y1, x2, y2)
    return task_losses.mean()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='MAML (sinusoid)')
    parser.add_argument('--iters', type=int, default=3)
    parser.add_argument('--tasks', type=int, default=3)
    parser.add_argument('--points', type=int, default=5)
    parser.add_argument('--update-step', type=int, default=2)
    parser.add_argument('--functional', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    net = ThreeLayerNet().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', net)
    meta_optim = mg.optim.Adam(net.parameters(), lr=1e-3)
    alpha = 0.1
    history = []
    for it in range(args.iters):
        x1, y1, x2, y2 = (mg.from_numpy(a).to(dtype) for a in sample_tasks(rng, args.tasks, args.points))
        meta_optim.zero_grad()
        if args.functional:
            params = dict(net.named_parameters())
            loss2 = functional_maml_loss(net, params, x1, y1, x2, y2, alpha, args.update_step)
        else:
            loss2 = maml_step(net, x1, y1, x2, y2, alpha, args.update_step)
        loss2.backward()
        history.append(loss2.item())
        history.extend(p.grad.norm().item() for p in net.parameters())
        meta_optim.step()
        print(f'Iteration {it} meta loss {loss2.item():.6f}')
    return history, net


if __name__ == '__main__':
    main()
