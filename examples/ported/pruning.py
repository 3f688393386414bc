"""PyTorch's "Pruning Tutorial" (pytorch/tutorials ``intermediate_source/pruning_tutorial.py``), ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/pruning.py

``nn.utils.prune`` on the tutorial's LeNet: ``random_unstructured`` and ``l1_unstructured`` of one
module (``weight_orig`` / ``weight_mask``, the forward pre-hook), ``ln_structured`` on top (a
``PruningContainer``: the pruning history), the state dict, ``prune.remove``, pruning every layer by
type, ``global_unstructured`` with the sparsities the tutorial prints, and a custom
``BasePruningMethod``.  Not in the tutorial: ``--steps`` SGD steps of the globally pruned network on a
fixed batch (the masked weights must stay 0), and its loss after ``prune.remove``.  The tutorial's
prints are kept in ``log`` (those of tensors as sums and counts in ``main``'s history).  The lines that
differ from the tutorial are listed in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.nn.utils.prune as prune
from minigrad_ckpt import nn

log = []
history = []


def show(*args):
    log.append(" ".join(str(a) for a in args))


def record(*values):
    history.extend(float(v) for v in values)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square conv kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5x5 image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def names(pairs):
    return [name for name, _ in pairs]


def one_module(model):
    module = model.conv1
    show(names(module.named_parameters()), names(module.named_buffers()))
    prune.random_unstructured(module, name="weight", amount=0.3)
    show(names(module.named_parameters()), names(module.named_buffers()))
    record((module.weight == 0).sum(), (module.weight_mask == 0).sum())
    show(len(module._forward_pre_hooks))
    prune.l1_unstructured(module, name="bias", amount=3)
    show(names(module.named_parameters()), names(module.named_buffers()))
    record(module.bias.sum(), (module.bias == 0).sum())
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    # 50% (3 out of 6) of the channels are zero, and the previous mask holds
    record(module.weight.sum(), (module.weight.flatten(1).abs().sum(1) == 0).sum())
    for hook in module._forward_pre_hooks.values():
        if hook._tensor_name == "weight":  # select out the correct hook
            break
    show([type(h).__name__ for h in hook])  # pruning history in the container
    show(list(model.state_dict().keys()))
    prune.remove(module, 'weight')
    show(names(module.named_parameters()), names(module.named_buffers()))
    record(module.weight.sum())


def every_layer(new_model):
    for name, module in new_model.named_modules():
        # prune 20% of connections in all 2D-conv layers
        if isinstance(module, mg.nn.Conv2d):
            prune.l1_unstructured(module, name='weight', amount=0.2)
        # prune 40% of connections in all linear layers
        elif isinstance(module, mg.nn.Linear):
            prune.l1_unstructured(module, name='weight', amount=0.4)
    show(list(dict(new_model.named_buffers()).keys()))  # to verify that all masks exist


def sparsity(weight):
    return 100. * float(mg.sum(weight == 0)) / float(weight.nelement())


def global_pruning(model):
    parameters_to_prune = (
        (model.conv1, 'weight'),
        (model.conv2, 'weight'),
        (model.fc1, 'weight'),
        (model.fc2, 'weight'),
        (model.fc3, 'weight'),
    )
    prune.global_unstructured(
        parameters_to_prune,
        pruning_method=prune.L1Unstructured,
        amount=0.2,
    )
    for name in ("conv1", "conv2", "fc1", "fc2", "fc3"):
        show("Sparsity in {}.weight: {:.2f}%".format(name, sparsity(getattr(model, name).weight)))
    total = sum(float(mg.sum(m.weight == 0)) for m, _ in parameters_to_prune)
    count = sum(float(m.weight.nelement()) for m, _ in parameters_to_prune)
    show("Global sparsity: {:.2f}%".format(100. * total / count))
    return parameters_to_prune


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor
    """
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


def train(model, parameters_to_prune, steps, dtype):
    # (not in the tutorial) the pruned network trains: gradients reach weight_orig through the mask
    optimizer = mg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = mg.linspace(-1, 1, 4 * 32 * 32, dtype=dtype).reshape(4, 1, 32, 32).sin()
    target = mg.tensor([1, 3, 5, 7])
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), target)
        loss.backward()
        optimizer.step()
        record(loss)
    for module, name in parameters_to_prune:
        prune.remove(module, name)
    record(F.cross_entropy(model(x), target), sparsity(model.fc1.weight))


def build(key, init, dtype):
    model = LeNet().to(dtype=dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init(key, model)
    return model


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="pruning")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    dtype = mg.float64 if args.double else mg.float32
    log.clear()
    history.clear()
    mg.manual_seed(0)
    one_module(build("model", init, dtype))
    every_layer(build("new_model", init, dtype))
    model = build("global", init, dtype)
    parameters_to_prune = global_pruning(model)
    foobar = build("foobar", init, dtype)
    foobar_unstructured(foobar.fc3, name='bias')
    show(foobar.fc3.bias_mask.tolist())
    train(model, parameters_to_prune, args.steps, dtype)
    for line in log:
        print(line)
    return list(history), model


if __name__ == "__main__":
    main()
