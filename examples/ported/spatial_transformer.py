"""The PyTorch tutorial "Spatial Transformer Networks" (``intermediate_source/spatial_transformer_tutorial.py``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/spatial_transformer.py

A classifier that first warps its input: a localization net regresses an affine matrix ``theta``
(its last layer starts at the identity map), ``F.affine_grid`` turns it into a sampling grid and
``F.grid_sample`` reads the image there.  Made small: :mod:`local_data`'s synthetic 28x28 digits
(not MNIST), 24 training and 16 test images, a few steps; ``--mode``, ``--padding-mode`` and
``--align-corners`` choose ``grid_sample``'s options (the tutorial's defaults otherwise), ``--double``
runs in float64, and ``--dropout`` sets the dropout rate.  The lines that differ are listed in
``README.md``.
"""

from __future__ import print_function

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from local_data import datasets, transforms


class Net(nn.Module):
    def __init__(self, args):
        super(Net, self).__init__()
        self.args = args
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d(args.dropout)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2)
        )

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(mg.tensor([1, 0, 0, 0, 1, 0], dtype=mg.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size(), align_corners=self.args.align_corners)
        x = F.grid_sample(x, grid, mode=self.args.mode, padding_mode=self.args.padding_mode,
                          align_corners=self.args.align_corners)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, p=self.args.dropout, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(model, optimizer, train_loader, epoch, dtype, losses):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(dtype=dtype), target

        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
            epoch, batch_idx * len(data), len(train_loader.dataset),
            100. * batch_idx / len(train_loader), loss.item()))


def test(model, test_loader, dtype):
    with mg.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in test_loader:
            data = data.to(dtype=dtype)
            output = model(data)

            # sum up batch loss
            test_loss += F.nll_loss(output, target, size_average=False).item()
            # get the index of the max log-probability
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()

        test_loss /= len(test_loader.dataset)
        print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'
              .format(test_loss, correct, len(test_loader.dataset),
                      100. * correct / len(test_loader.dataset)))
        return test_loss, correct


def visualize_stn(model, test_loader, dtype):
    """The tutorial's picture of the warped batch, as numbers: the mean and spread of
    ``model.stn`` on the first test batch (no matplotlib here)."""
    with mg.no_grad():
        data = next(iter(test_loader))[0].to(dtype=dtype)
        transformed = model.stn(data)
        return transformed.mean().item(), transformed.std().item()


def input_gradient(model, test_loader, dtype):
    """Not in the tutorial: the gradient of the loss with respect to the input images, which
    reaches them through ``grid_sample``'s input and through the localization net."""
    model.eval()
    data, target = next(iter(test_loader))
    data = data.to(dtype=dtype)
    data.requires_grad = True
    loss = F.nll_loss(model(data), target)
    model.zero_grad()
    loss.backward()
    return [data.grad.abs().sum().item(), data.grad.sum().item(), (data.grad * data).sum().item()]


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Spatial transformer networks')
    parser.add_argument('--mode', default='bilinear')
    parser.add_argument('--padding-mode', default='zeros')
    parser.add_argument('--align-corners', action='store_true', default=None)
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--dropout', type=float, default=0.5)
    parser.add_argument('--epochs', type=int, default=1)
    args = parser.parse_args(argv)
    mg.manual_seed(1)
    dtype = mg.float64 if args.double else mg.float32
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = mg.utils.data.DataLoader(
        datasets.MNIST(root='.', train=True, download=True, transform=transform, size=24),
        batch_size=8, shuffle=False)
    test_loader = mg.utils.data.DataLoader(
        datasets.MNIST(root='.', train=False, transform=transform, size=16),
        batch_size=8, shuffle=False)

    model = Net(args).to(dtype=dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    history = []
    for epoch in range(1, args.epochs + 1):
        train(model, optimizer, train_loader, epoch, dtype, history)
        history.extend(test(model, test_loader, dtype))
    history.extend(visualize_stn(model, test_loader, dtype))
    history.extend(input_gradient(model, test_loader, dtype))
    return history, model


if __name__ == '__main__':
    main()
