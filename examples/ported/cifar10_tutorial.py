"""PyTorch's "Training a Classifier" tutorial (the CIFAR-10 part of "Deep Learning with PyTorch: A 60 Minute
Blitz", pytorch/tutorials ``beginner_source/blitz/cifar10_tutorial.py``), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/cifar10_tutorial.py

The tutorial's ``Net`` (two ``Conv2d`` + ``MaxPool2d`` stages, three ``Linear`` layers, ``F.relu``,
``torch.flatten``), ``CrossEntropyLoss``, ``SGD(lr=0.001, momentum=0.9)``, the loop printing the running loss,
``torch.save`` / ``load_state_dict(torch.load(PATH, weights_only=True))`` of the trained net, ``next(iter(
testloader))``, ``torch.max(outputs, 1)``, the accuracy over the test set and per class (``zip`` of label and
prediction tensors indexing the ``classes`` tuple).  Made small: 8x8 images of ``tiny_cifar`` (CIFAR-10's
32x32: 3x3 convolutions of 6 and 16 channels, the first padded, and a 16 * 1 * 1 flattening; the tutorial's
5x5 convolutions leave 16 * 5 * 5), 64 training and 32 test images in batches of 4, ``--epochs`` (2), the
running loss printed every 4 mini-batches (2000), no shuffling (two engines' orders differ), no
``imshow`` (matplotlib).  The prints are kept in ``log``; the losses and accuracies are ``main``'s history.
The lines that differ from the tutorial are listed in ``README.md``.
"""

import argparse
import os
import tempfile

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from tiny_cifar import datasets, transforms

log = []
history = []


def show(*args):
    log.append(" ".join(str(a) for a in args))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 1 * 1, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = mg.flatten(x, 1) # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="cifar10 tutorial")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    log.clear()
    history.clear()
    dtype = mg.float64 if args.double else mg.float32

    transform = transforms.Compose(
        [transforms.ToTensor(),
         transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
         lambda x: x.to(dtype)])

    batch_size = 4

    trainset = datasets.CIFAR10(root='./data', train=True,
                                download=True, transform=transform, size=64)
    trainloader = mg.utils.data.DataLoader(trainset, batch_size=batch_size,
                                           shuffle=False, num_workers=0)

    testset = datasets.CIFAR10(root='./data', train=False,
                               download=True, transform=transform, size=32)
    testloader = mg.utils.data.DataLoader(testset, batch_size=batch_size,
                                          shuffle=False, num_workers=0)

    classes = ('plane', 'car', 'bird', 'cat',
               'deer', 'dog', 'frog', 'horse', 'ship', 'truck')

    # get some random training images
    dataiter = iter(trainloader)
    images, labels = next(dataiter)
    show(tuple(images.shape), images.dtype == dtype)
    # print labels
    show(' '.join(f'{classes[labels[j]]:5s}' for j in range(batch_size)))

    net = Net().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("net", net)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

    for epoch in range(args.epochs):  # loop over the dataset multiple times

        running_loss = 0.0
        for i, data in enumerate(trainloader, 0):
            # get the inputs; data is a list of [inputs, labels]
            inputs, labels = data

            # zero the parameter gradients
            optimizer.zero_grad()

            # forward + backward + optimize
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            # print statistics
            running_loss += loss.item()
            if i % 4 == 3:    # print every 4 mini-batches
                show(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 4:.3f}')
                history.append(running_loss / 4)
                running_loss = 0.0

    show('Finished Training')

    PATH = os.path.join(tempfile.mkdtemp(), 'cifar_net.pth')
    mg.save(net.state_dict(), PATH)

    dataiter = iter(testloader)
    images, labels = next(dataiter)

    # print images
    show('GroundTruth: ', ' '.join(f'{classes[labels[j]]:5s}' for j in range(4)))

    net = Net().to(dtype)
    net.load_state_dict(mg.load(PATH, weights_only=True))

    outputs = net(images)

    _, predicted = mg.max(outputs, dim=1)

    show('Predicted: ', ' '.join(f'{classes[predicted[j]]:5s}'
                                 for j in range(4)))

    correct = 0
    total = 0
    # since we're not training, we don't need to calculate the gradients for our outputs
    with mg.no_grad():
        for data in testloader:
            images, labels = data
            # calculate outputs by running images through the network
            outputs = net(images)
            # the class with the highest energy is what we choose as prediction
            _, predicted = mg.max(outputs, dim=1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    show(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')
    history.append(correct)

    # prepare to count predictions for each class
    correct_pred = {classname: 0 for classname in classes}
    total_pred = {classname: 0 for classname in classes}

    # again no gradients needed
    with mg.no_grad():
        for data in testloader:
            images, labels = data
            outputs = net(images)
            _, predictions = mg.max(outputs, dim=1)
            # collect the correct predictions for each class
            for label, prediction in zip(labels, predictions):
                if label == prediction:
                    correct_pred[classes[label]] += 1
                total_pred[classes[label]] += 1

    # print accuracy for each class
    for classname, correct_count in correct_pred.items():
        if total_pred[classname] == 0:  # (not in the tutorial: a class absent from the few test images)
            continue
        accuracy = 100 * float(correct_count) / total_pred[classname]
        show(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
        history.append(accuracy)
    os.remove(PATH)
    for line in log:
        print(line)
    return list(history), net


if __name__ == "__main__":
    main()
