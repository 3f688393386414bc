"""mixup and CutMix training of a small classifier: facebookresearch's ``mixup-cifar10`` ``train.py``
(``mixup_data``, ``mixup_criterion``, its accuracy of mixed targets) and clovaai's ``CutMix-PyTorch``
``train.py`` (``rand_bbox`` and the pasted box, ``--cutmix``); with ``--soft``, the mixed one-hot targets
as probabilities in ``F.cross_entropy`` (timm's ``Mixup`` and soft-target loss); ported to minigrad_ckpt by
a mechanical rename.

    python examples/ported/mixup.py --double
    python examples/ported/mixup.py --double --cutmix
    python examples/ported/mixup.py --double --soft

Made small: a two-convolution network with BatchNorm (the originals' PreAct ResNet-18 and PyramidNet) on
8x8 RGB blobs of 4 classes (CIFAR-10), 2 epochs of 4 batches of 8 (128), ``shuffle=False`` (two engines'
shuffles differ) and no test loop or checkpoints.  ``lam`` and the boxes are NumPy's draws, as in the
originals (``np.random.seed`` fixes them); ``torch.randperm`` is the test's replay of torch's.  The lines
that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 8, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.linear = nn.Linear(8, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = F.adaptive_avg_pool2d(out, 1).view(out.size(0), -1)
        return self.linear(out)


def mixup_data(x, y, alpha=1.0, use_cuda=True):
    '''Returns mixed inputs, pairs of targets, and lambda'''
    if alpha > 0:
        lam = np.random.beta(alpha, alpha)
    else:
        lam = 1

    batch_size = x.size()[0]
    if use_cuda:
        index = mg.randperm(batch_size).cuda()
    else:
        index = mg.randperm(batch_size)

    mixed_x = lam * x + (1 - lam) * x[index, :]
    y_a, y_b = y, y[index]
    return mixed_x, y_a, y_b, lam


def mixup_criterion(criterion, pred, y_a, y_b, lam):
    return lam * criterion(pred, y_a) + (1 - lam) * criterion(pred, y_b)


def rand_bbox(size, lam):
    W = size[2]
    H = size[3]
    cut_rat = np.sqrt(1. - lam)
    cut_w = int(W * cut_rat)
    cut_h = int(H * cut_rat)

    # uniform
    cx = np.random.randint(W)
    cy = np.random.randint(H)

    bbx1 = np.clip(cx - cut_w // 2, 0, W)
    bby1 = np.clip(cy - cut_h // 2, 0, H)
    bbx2 = np.clip(cx + cut_w // 2, 0, W)
    bby2 = np.clip(cy + cut_h // 2, 0, H)

    return bbx1, bby1, bbx2, bby2


def blobs(n, dtype):
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 4, n)
    yy, xx = np.mgrid[:8, :8]
    images = rng.standard_normal((n, 3, 8, 8)) * 0.3
    for i, c in enumerate(labels):
        images[i, c % 3] += np.exp(-((yy - 2 - 2 * (c // 2)) ** 2 + (xx - 2 - 3 * (c % 2)) ** 2) / 4.0)
    return mg.from_numpy(images).to(dtype), mg.from_numpy(labels)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='mixup / CutMix training')
    parser.add_argument('--lr', default=0.1, type=float, help='learning rate')
    parser.add_argument('--epoch', default=2, type=int, help='total epochs to run')
    parser.add_argument('--decay', default=1e-4, type=float, help='weight decay')
    parser.add_argument('--alpha', default=1., type=float, help='mixup interpolation coefficient (default: 1)')
    parser.add_argument('--cutmix', action='store_true', help='CutMix instead of mixup')
    parser.add_argument('--beta', default=1.0, type=float, help='CutMix: hyperparameter beta')
    parser.add_argument('--cutmix_prob', default=0.75, type=float, help='CutMix: probability')
    parser.add_argument('--soft', action='store_true', help='mixed one-hot targets, label smoothing 0.1')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    np.random.seed(0)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    use_cuda = False
    inputs_all, targets_all = blobs(32, dtype)
    trainloader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(inputs_all, targets_all), batch_size=8,
                                           shuffle=False)
    net = Net().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', net)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1 if args.soft else 0.0)
    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.decay)
    history = []
    for epoch in range(args.epoch):
        net.train()
        train_loss = 0
        correct = 0
        total = 0
        for batch_idx, (inputs, targets) in enumerate(trainloader):
            if args.cutmix:
                r = np.random.rand(1)
                if args.beta > 0 and r < args.cutmix_prob:
                    # generate mixed sample
                    lam = np.random.beta(args.beta, args.beta)
                    rand_index = mg.randperm(inputs.size()[0])
                    targets_a = targets
                    targets_b = targets[rand_index]
                    bbx1, bby1, bbx2, bby2 = rand_bbox(inputs.size(), lam)
                    inputs[:, :, bbx1:bbx2, bby1:bby2] = inputs[rand_index, :, bbx1:bbx2, bby1:bby2]
                    # adjust lambda to exactly match pixel ratio
                    lam = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (inputs.size()[-1] * inputs.size()[-2]))
                    # compute output
                    outputs = net(inputs)
                    loss = criterion(outputs, targets_a) * lam + criterion(outputs, targets_b) * (1. - lam)
                else:
                    lam, targets_a, targets_b = 1.0, targets, targets
                    outputs = net(inputs)
                    loss = criterion(outputs, targets)
            else:
                inputs, targets_a, targets_b, lam = mixup_data(inputs, targets, args.alpha, use_cuda)
                outputs = net(inputs)
                if args.soft:
                    y_a = F.one_hot(targets_a, 4).to(dtype)
                    y_b = F.one_hot(targets_b, 4).to(dtype)
                    loss = criterion(outputs, lam * y_a + (1 - lam) * y_b)
                else:
                    loss = mixup_criterion(criterion, outputs, targets_a, targets_b, lam)
            train_loss += loss.item()
            _, predicted = outputs.data.max(1)
            total += targets.size(0)
            correct += (lam * predicted.eq(targets_a.data).cpu().sum().float()
                        + (1 - lam) * predicted.eq(targets_b.data).cpu().sum().float())

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.extend([loss.item(), float(lam)])
        history.extend([train_loss / (batch_idx + 1), 100. * correct.item() / total])
    return history, net


if __name__ == '__main__':
    print(main()[0])
