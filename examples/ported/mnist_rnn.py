"""pytorch/examples ``mnist_rnn/main.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/mnist_rnn.py --epochs 2

Each image read row by row by ``nn.LSTM(batch_first=True)``, its last output through
``BatchNorm1d``, ``Dropout2d`` and two linear layers to ``log_softmax``; Adadelta with ``StepLR``.
Small: 64 images of 28x28 digits-like blobs made here (no download), 16 hidden units, and
``Dropout2d`` with p = 0 (two engines' masks differ); the lines that differ are listed in
``README.md``.
"""

from __future__ import print_function

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from minigrad_ckpt.optim.lr_scheduler import StepLR

HIDDEN = 16  # the original's 64


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=HIDDEN, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(HIDDEN)
        self.dropout1 = nn.Dropout2d(0.0)
        self.dropout2 = nn.Dropout2d(0.0)
        self.fc1 = nn.Linear(HIDDEN, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # Shape of input is (batch_size,1, 28, 28)
        # converting shape of input to (batch_size, 28, 28)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)

        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
    return losses


def test(args, model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with mg.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))
    return [test_loss, correct]


def digits(n, seed):
    """Normalized (n, 1, 28, 28) images of 10 classes (a bar whose angle is the class) and labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    yy, xx = np.mgrid[0:28, 0:28] - 13.5
    angle = labels[:, None, None] * np.pi / 10
    dist = np.abs(np.cos(angle) * yy - np.sin(angle) * xx)
    img = np.exp(-dist ** 2 / 4.0) * (np.hypot(yy, xx) < 11) + rng.uniform(0, 0.1, (n, 28, 28))
    img = (img - 0.1307) / 0.3081
    return mg.from_numpy(img[:, None].astype(np.float32)), mg.from_numpy(labels)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example using RNN')
    parser.add_argument('--batch-size', type=int, default=16, metavar='N')
    parser.add_argument('--test-batch-size', type=int, default=32, metavar='N')
    parser.add_argument('--epochs', type=int, default=2, metavar='N')
    parser.add_argument('--lr', type=float, default=0.1, metavar='LR')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M')
    parser.add_argument('--seed', type=int, default=1, metavar='S')
    parser.add_argument('--log-interval', type=int, default=1, metavar='N')
    args = parser.parse_args(argv)
    device = mg.device("cpu")
    mg.manual_seed(args.seed)

    train_loader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(*digits(48, seed=0)),
                                            batch_size=args.batch_size, shuffle=False)
    test_loader = mg.utils.data.DataLoader(mg.utils.data.TensorDataset(*digits(32, seed=1)),
                                           batch_size=args.test_batch_size, shuffle=False)

    model = Net().to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', model)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    history = []
    for epoch in range(1, args.epochs + 1):
        history += train(args, model, device, train_loader, optimizer, epoch)
        history += test(args, model, device, test_loader)
        scheduler.step()
    return history, model


if __name__ == '__main__':
    main()
