"""A small ResNet trained the modern way (torchvision's ``BasicBlock`` ResNet; the PyTorch performance
tuning guide's ``channels_last``: ``model.to(memory_format=torch.channels_last)`` and each batch
``.to(memory_format=torch.channels_last)``; the AMP recipe's ``torch.autocast`` and
``torch.amp.GradScaler`` with ``unscale_`` before ``clip_grad_norm_``; SGD with Nesterov momentum and
weight decay under ``OneCycleLR``; and the "saving and loading a general checkpoint" recipe: model,
optimizer, scheduler and scaler state saved in the middle of training, loaded into fresh objects, and the
run continued); ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/resnet_amp.py --double
    python examples/ported/resnet_amp.py --amp        # autocast to bfloat16 (minigrad_ckpt: float32, a warning)

Made small: 8x8 three-channel images of NumPy-made blobs in 4 classes, a ResNet of three BasicBlocks
(widths 8, 8 and 16, the last strided with a 1x1 downsample), batches of 8, 6 steps, the checkpoint after
step 3 (``torch.save`` into a ``BytesIO``).  The program runs twice from the same start: once unbroken,
once stopped at the checkpoint and resumed in fresh objects.  ``--amp``: the forward pass under
``autocast(device_type='cpu', dtype=torch.bfloat16)``, which minigrad_ckpt cannot lower (it computes in
float32 and warns, see docs/from-pytorch.md), so that run is PyTorch's only to bfloat16's precision.  The
history records each step's loss, learning rate, momentum, loss scale and gradient norm, and two sums of
each parameter's gradient, of the unbroken run then the resumed one's, and whether they agree bitwise.
"""

import argparse
import io

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


def conv3x3(in_planes, out_planes, stride=1):
    """3x3 convolution with padding"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(in_planes, out_planes, stride=1):
    """1x1 convolution"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)

        out = self.conv2(out)
        out = self.bn2(out)

        if self.downsample is not None:
            identity = self.downsample(x)

        out += identity
        out = self.relu(out)

        return out


class ResNet(nn.Module):
    def __init__(self, num_classes=4, widths=(8, 8, 16)):
        super().__init__()
        self.inplanes = widths[0]
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self._make_layer(widths[1], 1)
        self.layer2 = self._make_layer(widths[2], 1, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[2] * BasicBlock.expansion, num_classes)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * BasicBlock.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * BasicBlock.expansion, stride),
                nn.BatchNorm2d(planes * BasicBlock.expansion),
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * BasicBlock.expansion
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.avgpool(x)
        x = mg.flatten(x, 1)
        return self.fc(x)


def blobs(n, rng):
    labels = rng.integers(0, 4, n)
    x = 0.3 * rng.standard_normal((n, 3, 8, 8))
    for i, c in enumerate(labels):
        r, q = divmod(int(c), 2)
        x[i, :, 4 * r:4 * r + 4, 4 * q:4 * q + 4] += 1.0 + 0.2 * c
    return x, labels


class Trainer:
    """Model, optimizer, scheduler and scaler: what the checkpoint holds."""

    def __init__(self, args, dtype, init=None):
        self.model = ResNet().to(dtype)
        if init is not None:  # a test hook: records or loads the starting weights
            init('model', self.model)
        self.model = self.model.to(memory_format=mg.channels_last)
        self.optimizer = mg.optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                                      weight_decay=5e-4)
        self.scheduler = mg.optim.lr_scheduler.OneCycleLR(self.optimizer, max_lr=0.2, total_steps=args.steps)
        self.scaler = mg.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
        self.amp = args.amp

    def train_step(self, images, labels, history):
        images = images.to(memory_format=mg.channels_last)
        self.optimizer.zero_grad(set_to_none=True)
        with mg.autocast(device_type="cpu", dtype=mg.bfloat16, enabled=self.amp):
            output = self.model(images)
            loss = F.cross_entropy(output, labels)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        grad_norm = nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=5.0)
        group = self.optimizer.param_groups[0]
        history.extend([loss.item(), group['lr'], group['momentum'], self.scaler.get_scale(), grad_norm.item()])
        for p in self.model.parameters():
            history.extend([p.grad.sum().item(), p.grad.abs().sum().item()])
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()

    def save(self, f, step):
        mg.save({
            'step': step,
            'model_state_dict': self.model.state_dict(),
            'optimizer_state_dict': self.optimizer.state_dict(),
            'scheduler_state_dict': self.scheduler.state_dict(),
            'scaler_state_dict': self.scaler.state_dict(),
        }, f)

    def load(self, f):
        checkpoint = mg.load(f)
        self.model.load_state_dict(checkpoint['model_state_dict'])
        self.optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
        self.scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
        self.scaler.load_state_dict(checkpoint['scaler_state_dict'])
        return checkpoint['step']


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='ResNet with channels_last, AMP, OneCycleLR and a resume')
    parser.add_argument('--steps', type=int, default=6)
    parser.add_argument('--resume-at', type=int, default=3)
    parser.add_argument('--batch-size', type=int, default=8)
    parser.add_argument('--amp', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    data, labels = blobs(args.steps * args.batch_size, rng)
    x_all, y_all = mg.from_numpy(data).to(dtype), mg.from_numpy(labels)

    def batch(step):
        return (x_all[step * args.batch_size:(step + 1) * args.batch_size],
                y_all[step * args.batch_size:(step + 1) * args.batch_size])

    unbroken = Trainer(args, dtype, init)
    start = {k: v.clone() for k, v in unbroken.model.state_dict().items()}
    unbroken.model.train()
    history, resumed_history = [], []
    for step in range(args.steps):
        unbroken.train_step(*batch(step), history)

    first = Trainer(args, dtype)
    first.model.load_state_dict(start)
    first.model.train()
    for step in range(args.resume_at):
        first.train_step(*batch(step), resumed_history)
    buffer = io.BytesIO()
    first.save(buffer, args.resume_at)
    del first
    buffer.seek(0)
    second = Trainer(args, dtype)
    begin = second.load(buffer)
    second.model.train()
    for step in range(begin, args.steps):
        second.train_step(*batch(step), resumed_history)

    same = all(a.equal(b) for a, b in zip(unbroken.model.state_dict().values(),  # (mg.equal: NumPy's, elementwise)
                                                second.model.state_dict().values()))
    history.extend(resumed_history)
    history.extend([float(resumed_history == history[:len(resumed_history)]), float(same),
                    float(second.model.conv1.weight.is_contiguous(memory_format=mg.channels_last))])
    return history, (unbroken.model, second.model)


if __name__ == '__main__':
    print(main()[0][-3:])
