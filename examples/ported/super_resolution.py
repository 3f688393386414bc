"""pytorch/examples ``super_resolution`` (``model.py`` and ``main.py``), ported to minigrad_ckpt
by a mechanical rename.

    python examples/ported/super_resolution.py --upscale_factor 2

The efficient sub-pixel network: convolutions whose last one makes ``upscale_factor ** 2``
channels that ``nn.PixelShuffle`` rearranges into the larger image, its weights drawn by
``init.orthogonal_`` with ``init.calculate_gain('relu')``; trained with Adam on ``MSELoss``,
tested by PSNR (``10 * log10(1 / mse.item())``), and checkpointed (``mg.save(model.state_dict())``,
read back into a new ``Net``: mg.save stores no pickled modules).  Small: fewer channels, 12x12 images made
here (the low-resolution input is the 2x2 block mean); the lines that differ are listed in
``README.md``.
"""

from __future__ import print_function

import argparse
import os
import tempfile
from math import log10

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.init as init
import minigrad_ckpt.optim as optim
from minigrad_ckpt.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, 4, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(4, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


def image_pairs(n, upscale_factor, seed):
    """(low-resolution input, target) pairs of the Y channel in [0, 1]: smooth 12x12 patterns."""
    rng = np.random.default_rng(seed)
    size = 6 * upscale_factor
    yy, xx = np.mgrid[0:size, 0:size] / size
    a = rng.uniform(1, 6, (n, 4, 1, 1))
    target = 0.5 + 0.25 * (np.sin(a[:, 0] * xx + a[:, 1]) + np.cos(a[:, 2] * yy + a[:, 3]))
    low = target.reshape(n, 6, upscale_factor, 6, upscale_factor).mean(axis=(2, 4))
    return mg.from_numpy(low[:, None].astype(np.float32)), mg.from_numpy(target[:, None].astype(np.float32))


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch Super Res Example')
    parser.add_argument('--upscale_factor', type=int, default=2, help="super resolution upscale factor")
    parser.add_argument('--batchSize', type=int, default=4, help='training batch size')
    parser.add_argument('--testBatchSize', type=int, default=4, help='testing batch size')
    parser.add_argument('--nEpochs', type=int, default=2, help='number of epochs to train for')
    parser.add_argument('--lr', type=float, default=0.01, help='Learning Rate. Default=0.01')
    parser.add_argument('--seed', type=int, default=123, help='random seed to use. Default=123')
    opt = parser.parse_args(argv)
    mg.manual_seed(opt.seed)
    device = mg.device("cpu")

    train_set = TensorDataset(*image_pairs(8, opt.upscale_factor, seed=0))
    test_set = TensorDataset(*image_pairs(4, opt.upscale_factor, seed=1))
    training_data_loader = DataLoader(dataset=train_set, batch_size=opt.batchSize, shuffle=False)
    testing_data_loader = DataLoader(dataset=test_set, batch_size=opt.testBatchSize, shuffle=False)

    model = Net(upscale_factor=opt.upscale_factor).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', model)
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=opt.lr)
    history = []

    def train(epoch):
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0].to(device), batch[1].to(device)
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()
            history.append(loss.item())
            print("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(epoch, iteration, len(training_data_loader), loss.item()))
        print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))

    def test(net):
        avg_psnr = 0
        with mg.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0].to(device), batch[1].to(device)
                prediction = net(input)
                mse = criterion(prediction, target)
                psnr = 10 * log10(1 / mse.item())
                avg_psnr += psnr
        print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))
        return avg_psnr / len(testing_data_loader)

    with tempfile.TemporaryDirectory() as out:
        for epoch in range(1, opt.nEpochs + 1):
            train(epoch)
            history.append(test(model))
            model_out_path = os.path.join(out, "model_epoch_{}.pth".format(epoch))
            mg.save(model.state_dict(), model_out_path)
            print("Checkpoint saved to {}".format(model_out_path))
        restored = Net(upscale_factor=opt.upscale_factor)
        restored.load_state_dict(mg.load(model_out_path))
        history.append(test(restored))
    return history, model


if __name__ == '__main__':
    main()
