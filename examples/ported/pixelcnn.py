"""jzbontar's ``pixelcnn-pytorch`` (``main.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/pixelcnn.py --levels 4

A PixelCNN: convolutions whose weights are masked (type ``A`` hides the centre pixel, ``B`` keeps
it) by a buffer (``register_buffer``, filled by ``fill_`` and slice assignment) that ``forward``
multiplies into ``self.weight.data`` in place, ``BatchNorm2d`` and in-place ``ReLU(True)``, a
256-way (or ``--levels``-way) softmax per pixel trained by ``F.cross_entropy`` on ``(N, C, H, W)``
logits, Adam; then the pixel-by-pixel sampling loop (``F.softmax`` over a pixel's logits,
``torch.multinomial``, a slice assignment into ``sample``), and the test loss in bits per
dimension.  Made small: 8x8 images, 8 feature maps, three masked layers, 2 training steps, one
sampled batch of 2; ``Variable`` and ``.cuda()`` are gone (the lines that differ are listed in
``README.md``).
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import nn, optim


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super(MaskedConv2d, self).__init__(*args, **kwargs)
        assert mask_type in {'A', 'B'}
        self.register_buffer('mask', self.weight.data.clone())
        _, _, kH, kW = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kH // 2, kW // 2 + (mask_type == 'B'):] = 0
        self.mask[:, :, kH // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super(MaskedConv2d, self).forward(x)


def pixelcnn(fm, levels, layers):
    body = [MaskedConv2d('A', 1, fm, 7, 1, 3, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True)]
    for _ in range(layers - 1):
        body += [MaskedConv2d('B', fm, fm, 7, 1, 3, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True)]
    return nn.Sequential(*body, nn.Conv2d(fm, levels, 1))


def images(n, size, seed=0):
    """Soft blobs in [0, 1] (the stand-in for MNIST), already ``ToTensor``-ed: (n, 1, size, size)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    cy, cx = rng.uniform(1, size - 1, (2, n, 1, 1))
    img = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 4.0)
    return img[:, None].astype(np.float32)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--levels', type=int, default=256)
    parser.add_argument('--fm', type=int, default=8)
    parser.add_argument('--layers', type=int, default=3)
    parser.add_argument('--size', type=int, default=8)
    parser.add_argument('--steps', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=4)
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    levels, size = args.levels, args.size
    net = pixelcnn(args.fm, levels, args.layers)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', net)
    # the data: quantized to the levels as MNIST's bytes are to 256
    data = np.floor(images(args.batch_size * (args.steps + 1), size) * (levels - 1) + 0.5) / (levels - 1)
    tr = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(mg.from_numpy(data[:-args.batch_size].astype(np.float32))),
                                  batch_size=args.batch_size, shuffle=False)
    te = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(mg.from_numpy(data[-args.batch_size:].astype(np.float32))),
                                  batch_size=args.batch_size, shuffle=False)
    sample = mg.Tensor(2, 1, size, size)
    optimizer = optim.Adam(net.parameters())
    history = []
    # train
    net.train(True)
    for input, in tr:
        target = (input.data[:, 0] * (levels - 1)).long()
        loss = F.cross_entropy(net(input), target)
        history.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    # compute error on test set
    err_te = []
    net.train(False)
    with mg.no_grad():
        for input, in te:
            target = (input.data[:, 0] * (levels - 1)).long()
            loss = F.cross_entropy(net(input), target, reduction='none')
            err_te.append((loss.sum(dim=(1, 2)) / (size * size) / np.log(2.)).mean().item())  # bits/dim
    history.append(np.mean(err_te))
    # sample
    sample.fill_(0)
    with mg.no_grad():
        for i in range(size):
            for j in range(size):
                out = net(sample)
                probs = F.softmax(out[:, :, i, j]).data
                sample[:, :, i, j] = mg.multinomial(probs, 1).float() / (levels - 1)
                history.append((probs * mg.arange(levels)).sum().item())  # what the draw drew from
    history.append(sample.sum().item())
    return history, net


if __name__ == '__main__':
    print(main()[0])
