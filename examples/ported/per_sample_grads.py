"""Per-sample gradients (pytorch/tutorials ``intermediate_source/per_sample_grads.py``): the gradient of
each example's loss, first by a loop of ``autograd.grad`` over the examples, then by ``torch.func``'s
``vmap(grad(compute_loss))`` over ``functional_call``; ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/per_sample_grads.py --double

Made small: ``SimpleCNN`` has 4 and 8 channels and a hidden layer of 16 on 10x10 inputs (the tutorial:
32, 64, 128 on 28x28), a batch of 6 (64); the data are drawn by NumPy (the tutorial's ``torch.randn`` and
``torch.randint``).  Not in the tutorial: ``grad_and_value`` with ``has_aux``, and ``--steps`` steps of
DP-SGD's update (each example's gradient clipped to a norm, then averaged), as Opacus makes it from
per-sample gradients.  The lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.func import functional_call, grad, grad_and_value, vmap


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.fc1 = nn.Linear(72, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = mg.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='per-sample gradients')
    parser.add_argument('--batch-size', type=int, default=6)
    parser.add_argument('--steps', type=int, default=2)
    parser.add_argument('--max-norm', type=float, default=1.0)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    batch_size = args.batch_size
    data = mg.from_numpy(rng.standard_normal((batch_size, 1, 10, 10))).to(dtype)
    targets = mg.from_numpy(rng.integers(0, 10, (batch_size,)))

    model = SimpleCNN().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    history = []

    predictions = model(data)  # move the entire mini-batch through the model
    loss = loss_fn(predictions, targets)
    loss.backward()  # back propagate the 'average' gradient of this mini-batch
    history.append(loss.item())

    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)  # prepend batch dimension for processing
        target = target.unsqueeze(0)
        prediction = model(sample)
        loss = loss_fn(prediction, target)
        return mg.autograd.grad(loss, list(model.parameters()))

    def compute_sample_grads(data, targets):
        """ manually process each sample with per sample gradient """
        sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
        sample_grads = zip(*sample_grads)
        sample_grads = [mg.stack(shards) for shards in sample_grads]
        return sample_grads

    per_sample_grads = compute_sample_grads(data, targets)
    history.extend(g.sum().item() for g in per_sample_grads)

    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss

    ft_compute_grad = grad(compute_loss)
    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

    # we can double check that the results using ``grad`` and ``vmap`` match the results of
    # hand processing each one individually:
    for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
        assert mg.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
        history.append((per_sample_grad - ft_per_sample_grad).abs().max().item())
        history.extend([float(ft_per_sample_grad.requires_grad), float(ft_per_sample_grad.dtype == dtype)])
        history.append(ft_per_sample_grad.pow(2).sum().item())

    # Not in the tutorial: the losses too (has_aux), and DP-SGD's clipped, averaged step
    def loss_and_prediction(params, buffers, sample, target):
        predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return loss_fn(predictions, target.unsqueeze(0)), predictions.exp().squeeze(0)

    per_example = vmap(grad_and_value(loss_and_prediction, has_aux=True), in_dims=(None, None, 0, 0))
    for _ in range(args.steps):
        params = {k: v.detach() for k, v in model.named_parameters()}
        grads, (losses, probs) = per_example(params, buffers, data, targets)
        history.extend(losses.tolist())
        history.append(probs.sum(1).mean().item())
        norms = mg.stack([g.flatten(1).norm(dim=1) for g in grads.values()], dim=1).norm(dim=1)
        scale = (args.max_norm / (norms + 1e-6)).clamp(max=1.0)
        history.extend(norms.tolist())
        with mg.no_grad():
            for name, p in model.named_parameters():
                clipped = grads[name] * scale.view(-1, *([1] * (grads[name].dim() - 1)))
                p.sub_(0.5 * clipped.mean(0))
    return history, model


if __name__ == '__main__':
    print(main()[0][:3])
