"""pytorch/examples ``siamese_network/main.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/siamese_network.py --epochs 2

Two images through one shared ResNet-style feature extractor (``list(resnet.children())[:-1]``
in an ``nn.Sequential``: a 7x7 stem, ``BatchNorm2d``, max pooling, basic residual blocks with a
strided downsample, ``AdaptiveAvgPool2d((1, 1))``), the two feature vectors joined with
``mg.cat`` and scored by linear layers (``ReLU(inplace=True)``) and a sigmoid under ``BCELoss``;
Adadelta with ``StepLR``; accuracy by ``mg.where(outputs > 0.5, 1, 0)``.  Small: torchvision's
ResNet-18 is written here with two blocks and fewer channels (the same building blocks and
initialization), and the images are 16x16 digits-like blobs made here; the lines that differ are
listed in ``README.md``.
"""

from __future__ import print_function

import argparse
import random

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim
from minigrad_ckpt.optim.lr_scheduler import StepLR
from minigrad_ckpt.utils.data import Dataset


class BasicBlock(nn.Module):
    """torchvision's ``resnet.BasicBlock``."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
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
    """torchvision's ``resnet.ResNet`` with one block per stage and two stages of 8 and 16 channels."""

    def __init__(self, widths=(8, 16), num_classes=10):
        super().__init__()
        self.inplanes = widths[0]
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(widths[0], 1)
        self.layer2 = self._make_layer(widths[1], 1, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[1] * BasicBlock.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * BasicBlock.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * BasicBlock.expansion, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * BasicBlock.expansion),
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * BasicBlock.expansion
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = mg.flatten(self.avgpool(x), 1)
        return self.fc(x)


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        # get resnet model
        self.resnet = ResNet()

        # over-write the first conv layer to be able to read MNIST images
        self.resnet.conv1 = nn.Conv2d(1, 8, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
        self.fc_in_features = self.resnet.fc.in_features

        # remove the last layer of resnet18 (linear layer which is before avgpool layer)
        self.resnet = mg.nn.Sequential(*(list(self.resnet.children())[:-1]))

        # add linear layers to compare between the features of the two images
        self.fc = nn.Sequential(
            nn.Linear(self.fc_in_features * 2, 16),
            nn.ReLU(inplace=True),
            nn.Linear(16, 1),
        )

        self.sigmoid = nn.Sigmoid()

        # initialize the weights
        self.resnet.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            mg.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.resnet(x)
        output = output.view(output.size()[0], -1)
        return output

    def forward(self, input1, input2):
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        output = mg.cat((output1, output2), 1)
        output = self.fc(output)
        output = self.sigmoid(output)
        return output


def digit_images(n, seed):
    """(n, 16, 16) uint8 images of 10 classes (a blob whose place is the class) and their labels."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 10
    yy, xx = np.mgrid[0:16, 0:16]
    cy, cx = 4 + 2.5 * (labels // 4), 3 + 3 * (labels % 4)
    img = 255 * np.exp(-((yy - cy[:, None, None]) ** 2 + (xx - cx[:, None, None]) ** 2) / 6.0)
    img = img + rng.uniform(0, 40, img.shape)
    return mg.from_numpy(np.clip(img, 0, 255).astype(np.uint8)), mg.from_numpy(labels)


class APP_MATCHER(Dataset):
    def __init__(self, n, seed):
        super(APP_MATCHER, self).__init__()
        data, targets = digit_images(n, seed)  # the original: datasets.MNIST(root, train=train)
        self.data = data.unsqueeze(1).clone()
        self.targets = targets
        self.group_examples()

    def group_examples(self):
        np_arr = np.array(self.targets.clone(), dtype=None, copy=None)
        self.grouped_examples = {}
        for i in range(0, 10):
            self.grouped_examples[i] = np.where((np_arr == i))[0]

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        selected_class = random.randint(0, 9)
        random_index_1 = random.randint(0, self.grouped_examples[selected_class].shape[0] - 1)
        index_1 = self.grouped_examples[selected_class][random_index_1]
        image_1 = self.data[index_1].clone().float()
        if index % 2 == 0:
            random_index_2 = random.randint(0, self.grouped_examples[selected_class].shape[0] - 1)
            while random_index_2 == random_index_1:
                random_index_2 = random.randint(0, self.grouped_examples[selected_class].shape[0] - 1)
            index_2 = self.grouped_examples[selected_class][random_index_2]
            image_2 = self.data[index_2].clone().float()
            target = mg.tensor(1, dtype=mg.float)
        else:
            other_selected_class = random.randint(0, 9)
            while other_selected_class == selected_class:
                other_selected_class = random.randint(0, 9)
            random_index_2 = random.randint(0, self.grouped_examples[other_selected_class].shape[0] - 1)
            index_2 = self.grouped_examples[other_selected_class][random_index_2]
            image_2 = self.data[index_2].clone().float()
            target = mg.tensor(0, dtype=mg.float)
        return image_1, image_2, target


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    criterion = nn.BCELoss()
    losses = []
    for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
        images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(images_1, images_2).squeeze()
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(images_1), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
    return losses


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    criterion = nn.BCELoss()
    with mg.no_grad():
        for (images_1, images_2, targets) in test_loader:
            images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
            outputs = model(images_1, images_2).squeeze()
            test_loss += criterion(outputs, targets).sum().item()  # sum up batch loss
            pred = mg.where(outputs > 0.5, 1, 0)  # get the index of the max log-probability
            correct += pred.eq(targets.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
    return [test_loss, correct]


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='PyTorch Siamese network Example')
    parser.add_argument('--batch-size', type=int, default=8, metavar='N')
    parser.add_argument('--test-batch-size', type=int, default=10, metavar='N')
    parser.add_argument('--epochs', type=int, default=2, metavar='N')
    parser.add_argument('--lr', type=float, default=1.0, metavar='LR')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M')
    parser.add_argument('--seed', type=int, default=1, metavar='S')
    parser.add_argument('--log-interval', type=int, default=1, metavar='N')
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    random.seed(args.seed)  # the original leaves the pairs to the unseeded `random`
    device = mg.device("cpu")

    train_dataset = APP_MATCHER(24, seed=0)
    test_dataset = APP_MATCHER(20, seed=1)
    train_loader = mg.utils.data.DataLoader(train_dataset, batch_size=args.batch_size)
    test_loader = mg.utils.data.DataLoader(test_dataset, batch_size=args.test_batch_size)

    model = SiameseNetwork().to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('siamese', model)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    history = []
    for epoch in range(1, args.epochs + 1):
        history += train(args, model, device, train_loader, optimizer, epoch)
        history += test(model, device, test_loader)
        scheduler.step()
    return history, model


if __name__ == '__main__':
    main()
