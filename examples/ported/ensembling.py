"""Model ensembling (pytorch/tutorials ``intermediate_source/ensembling.py``): the predictions of several
models of one architecture by a loop and by ``torch.func``'s ``stack_module_state`` and ``vmap`` over
``functional_call`` -- each model its own minibatch ("different minibatches") and all of them the same
one; ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/ensembling.py --double
    python examples/ported/ensembling.py --double --batchnorm     # models with BatchNorm1d (eval mode)

Made small: 3 models (10) of ``SimpleMLP`` with 8 hidden units (128) on 6x6 images (28x28), minibatches
of 4 (64); the data are drawn by NumPy (the tutorial's ``torch.randn`` and ``torch.randint``).  Not in the
tutorial: ``--steps`` Adam steps of the whole ensemble at once (the stacked parameters are leaves that
require grad) compared with the same steps of each model alone, and a ``BatchNorm1d`` variant whose
running statistics come in through ``stack_module_state``'s buffers.  The lines that differ are listed in
``README.md``.
"""

import argparse
import copy

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import vmap
from minigrad_ckpt.func import functional_call, stack_module_state


class SimpleMLP(nn.Module):
    def __init__(self, batchnorm=False):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(36, 8)
        self.bn = nn.BatchNorm1d(8) if batchnorm else nn.Identity()
        self.fc2 = nn.Linear(8, 8)
        self.fc3 = nn.Linear(8, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(self.bn(x))
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='model ensembling')
    parser.add_argument('--num-models', type=int, default=3)
    parser.add_argument('--steps', type=int, default=2)
    parser.add_argument('--batchnorm', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    num_models = args.num_models
    data = mg.from_numpy(rng.standard_normal((6, 4, 1, 6, 6))).to(dtype)
    targets = mg.from_numpy(rng.integers(0, 10, (24,)))
    models = [SimpleMLP(args.batchnorm).to(dtype) for _ in range(num_models)]
    for i, model in enumerate(models):
        if init is not None:  # a test hook: records or loads the starting weights
            init(f'model{i}', model)
        if args.batchnorm:  # running statistics of a few batches, then evaluation mode
            with mg.no_grad():
                model(data[i + 1])
            model.eval()
    history = []

    minibatches = data[:num_models]
    predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
    minibatch = data[0]
    predictions2 = [model(minibatch) for model in models]

    params, buffers = stack_module_state(models)
    base_model = copy.deepcopy(models[0])
    base_model = base_model.to('meta')

    def fmodel(params, buffers, x):
        return functional_call(base_model, (params, buffers), (x,))

    history.extend(p.size(0) for p in params.values())  # the leading 'num_models' dimension
    history.extend(float(p.requires_grad and p.is_leaf) for p in params.values())
    assert minibatches.shape == (num_models, 4, 1, 6, 6)

    predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
    assert mg.allclose(predictions1_vmap, mg.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)
    predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    assert mg.allclose(predictions2_vmap, mg.stack(predictions2), atol=1e-3, rtol=1e-5)
    history.extend(predictions1_vmap.sum((1, 2)).tolist() + predictions2_vmap.sum((1, 2)).tolist())
    history.append(float(predictions1_vmap.requires_grad))

    # Not in the tutorial: the ensemble trained as one (its stacked parameters), and each model alone
    labels = targets[:num_models * 4].view(num_models, 4)
    optimizer = mg.optim.Adam(params.values(), lr=0.01)
    for _ in range(args.steps):
        optimizer.zero_grad()
        logits = vmap(fmodel)(params, buffers, minibatches)
        loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction='none').view(num_models, 4).mean(1)
        loss.sum().backward()
        optimizer.step()
        history.extend(loss.tolist())
    for i, model in enumerate(models):
        opt = mg.optim.Adam(model.parameters(), lr=0.01)
        for _ in range(args.steps):
            opt.zero_grad()
            loss = F.cross_entropy(model(minibatches[i]), labels[i])
            loss.backward()
            opt.step()
            history.append(loss.item())
        for name, p in model.named_parameters():
            history.append((p - params[name][i]).abs().max().item())
    return history, tuple(models)


if __name__ == '__main__':
    print(main()[0][:3])
