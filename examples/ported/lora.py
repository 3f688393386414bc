"""LoRA fine-tuning from scratch (hkproj's ``pytorch-lora``, "LoRA from scratch": a classifier
pretrained, then fine-tuned through ``parametrize.register_parametrization`` of a low-rank
``LoRAParametrization`` on each Linear's weight, the original weights frozen by ``requires_grad =
False``); ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/lora.py --double
    python examples/ported/lora.py --double --manual     # a LoRALinear wrapper instead (peft's way)

Made small: ``RichBoyNet`` is 16-12-12-4 (784-1000-2000-10) on NumPy-made clusters (MNIST), one epoch of
a few batches each phase, the fine-tuning on the classes the network does worst on (the notebook's
digit 9); the ``tqdm`` loops print nothing.  The LoRA matrices' start (``nn.init.normal_`` of
``lora_A``, ``lora_B`` zeros) is the test hook's (both non-zero, so the merged weights move).  Not in the
notebook: ``--manual`` (the low-rank add written in a wrapper module with ``requires_grad_(False)`` on
the base layer, as ``peft`` does), and the merge by ``parametrize.remove_parametrizations(...,
leave_parametrized=True)``.  The lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.utils.parametrize as parametrize


class RichBoyNet(nn.Module):
    def __init__(self, hidden_size_1=12, hidden_size_2=12):
        super(RichBoyNet, self).__init__()
        self.linear1 = nn.Linear(16, hidden_size_1)
        self.linear2 = nn.Linear(hidden_size_1, hidden_size_2)
        self.linear3 = nn.Linear(hidden_size_2, 4)
        self.relu = nn.ReLU()

    def forward(self, img):
        x = img.view(-1, 16)
        x = self.relu(self.linear1(x))
        x = self.relu(self.linear2(x))
        x = self.linear3(x)
        return x


class LoRAParametrization(nn.Module):
    def __init__(self, features_in, features_out, rank=1, alpha=1, dtype=None):
        super().__init__()
        # Section 4.1 of the paper:
        #   We use a random Gaussian initialization for A and zero for B, so ∆W = BA is zero at the beginning of training
        self.lora_A = nn.Parameter(mg.zeros((rank, features_out), dtype=dtype))
        self.lora_B = nn.Parameter(mg.zeros((features_in, rank), dtype=dtype))
        # Section 4.1 of the paper:
        #   We then scale ∆Wx by α/r , where α is a constant in r.
        self.scale = alpha / rank
        self.enabled = True

    def forward(self, original_weights):
        if self.enabled:
            # Return W + (B*A)*scale
            return original_weights + mg.matmul(self.lora_B, self.lora_A).view(original_weights.shape) * self.scale
        else:
            return original_weights


def linear_layer_parameterization(layer, rank=2, lora_alpha=1):
    # Only add the parameterization to the weight matrix, ignore the Bias
    features_in, features_out = layer.weight.shape
    return LoRAParametrization(features_in, features_out, rank=rank, alpha=lora_alpha, dtype=layer.weight.dtype)


class LoRALinear(nn.Module):
    """The low-rank add as a wrapper module (peft's ``lora.Linear``): the base layer frozen."""

    def __init__(self, base, rank=2, alpha=1):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, rank, bias=False).to(base.weight.dtype)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False).to(base.weight.dtype)
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling


def clusters(rng, n, dtype):
    centres = np.random.default_rng(5).standard_normal((4, 16)) * 1.5
    labels = rng.integers(0, 4, n)
    x = centres[labels] + rng.standard_normal((n, 16))
    return mg.from_numpy(x.reshape(n, 1, 4, 4)).to(dtype), mg.from_numpy(labels)


def train(net, batches, optimizer, history):
    cross_el = nn.CrossEntropyLoss()
    net.train()
    for x, y in batches:
        optimizer.zero_grad()
        output = net(x.view(-1, 16))
        loss = cross_el(output, y)
        loss.backward()
        optimizer.step()
        history.append(loss.item())


def test(net, x, y):
    with mg.no_grad():
        output = net(x.view(-1, 16))
        wrong_counts = [0] * 4
        for idx, i in enumerate(output):
            if mg.argmax(i) != y[idx]:
                wrong_counts[y[idx]] += 1
        return [mg.nn.functional.cross_entropy(output, y).item()] + wrong_counts


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='LoRA fine-tuning')
    parser.add_argument('--manual', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    x, y = clusters(rng, 32, dtype)
    x_test, y_test = clusters(rng, 24, dtype)
    net = RichBoyNet().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', net)
    history = []
    train(net, [(x[i:i + 8], y[i:i + 8]) for i in range(0, 32, 8)], mg.optim.Adam(net.parameters(), lr=0.01),
          history)
    # Keep a copy of the original weights (cloning them) so we can prove that a fine-tuning with LoRA
    # doesn't alter the original weights
    original_weights = {}
    for name, param in net.named_parameters():
        original_weights[name] = param.clone().detach()
    history.extend(test(net, x_test, y_test))
    total_parameters_original = 0
    for index, layer in enumerate([net.linear1, net.linear2, net.linear3]):
        total_parameters_original += layer.weight.nelement() + layer.bias.nelement()
    history.append(total_parameters_original)

    layers = [net.linear1, net.linear2, net.linear3]
    if args.manual:
        net.linear1, net.linear2, net.linear3 = (LoRALinear(layer) for layer in layers)
        adapters = [net.linear1, net.linear2, net.linear3]
    else:
        for layer in layers:
            parametrize.register_parametrization(layer, "weight", linear_layer_parameterization(layer))
        adapters = [layer.parametrizations["weight"][0] for layer in layers]
    started = [m for a in adapters for m in ((a.lora_A, a.lora_B) if args.manual else (a,))]
    if init is not None:  # the LoRA matrices' start (the notebook: normal_ for A, zeros for B)
        for i, module in enumerate(started):
            init(f'lora{i}', module)

    def enable_disable_lora(enabled=True):
        for layer in [net.linear1, net.linear2, net.linear3]:
            layer.parametrizations["weight"][0].enabled = enabled

    total_parameters_lora = 0
    for adapter in adapters:
        total_parameters_lora += sum(p.nelement() for n, p in adapter.named_parameters() if 'lora' in n)
    history.append(total_parameters_lora)
    # Freeze the non-Lora parameters
    for name, param in net.named_parameters():
        if 'lora' not in name:
            param.requires_grad = False
    history.extend(float(p.requires_grad) for p in net.parameters())
    if not args.manual:
        history.append(float(net.linear1.weight.requires_grad))  # computed from a frozen original and the LoRA
    history.append(len(list(net.state_dict())))

    # Fine-tune the network on the classes it does worst on, only for a few batches
    keep = (y == 3) | (y == 1)
    fine_x, fine_y = x[keep], y[keep]
    optimizer = mg.optim.Adam(net.parameters(), lr=0.01)
    train(net, [(fine_x[i:i + 4], fine_y[i:i + 4]) for i in range(0, len(fine_y), 4)], optimizer, history)

    # Check that the frozen parameters are still unchanged by the finetuning
    for name in ('linear1', 'linear2', 'linear3'):
        base = getattr(net, name).base if args.manual else getattr(net, name).parametrizations.weight
        frozen = base.weight if args.manual else base.original
        assert mg.all(frozen == original_weights[f'{name}.weight'])
        history.append(float(frozen.grad is None))
    history.extend(test(net, x_test, y_test))
    if not args.manual:
        enable_disable_lora(enabled=False)
        history.extend(test(net, x_test, y_test))  # the original network's answers
        enable_disable_lora(enabled=True)
        lora_out = net(x_test)
        for layer in [net.linear1, net.linear2, net.linear3]:  # merge: W + BA becomes the weight
            parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
        merged_out = net(x_test)
        history.append((lora_out - merged_out).abs().max().item())
        history.extend([float(net.linear1.weight.requires_grad), float(isinstance(net.linear1.weight, nn.Parameter))])
        history.append(len(list(net.state_dict())))
    return history, (net, *started)


if __name__ == '__main__':
    print(main()[0][:3])
