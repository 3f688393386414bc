"""PyTorch's "What is torch.nn really?" tutorial (pytorch/tutorials ``beginner_source/nn_tutorial.py``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/nn_tutorial.py

MNIST from scratch, refactored step by step as the tutorial does: hand-made weights (``torch.randn(...) /
math.sqrt(...)``, ``requires_grad_()``), a hand-written ``log_softmax`` and negative log-likelihood
(``input[range(n), target]``), the update under ``torch.no_grad()`` with ``grad.zero_()``; then
``F.cross_entropy``; ``nn.Module`` with ``nn.Parameter``s (``p -= p.grad * lr``, ``model.zero_grad()``);
``nn.Linear``; ``optim.SGD``; ``TensorDataset`` slices; ``DataLoader``; validation with ``model.train()`` /
``eval()`` and a ``sum`` of loss tensors; ``get_data`` / ``loss_batch`` / ``fit`` (``zip(*[...])``,
``np.sum(np.multiply(losses, nums))``); a CNN (``view``, strided ``Conv2d``, ``F.avg_pool2d``,
``SGD(momentum=0.9)``); ``nn.Sequential`` with a ``Lambda`` layer; ``WrappedDataLoader`` and
``nn.AdaptiveAvgPool2d``.  Made small: 14x14 images (2x2 means of ``local_data.synthetic_digits``' 28x28;
the CNN's last pooling 2 where the tutorial's is 4), 64 training and 32 validation images, batches of 16
(64), ``--epochs`` (2) of each fit.  The prints are kept in ``log``; the losses and accuracies are
``main``'s history.  The lines that differ from the tutorial are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from local_data import synthetic_digits
from minigrad_ckpt import nn, optim
from minigrad_ckpt.utils.data import DataLoader, TensorDataset

log = []
history = []
SIDE = 14


def show(*args):
    log.append(" ".join(str(a) for a in args))


def load_mnist(n, seed):
    """The tutorial's pickled MNIST arrays: float32 pixels in [0, 1] of flattened images, int64 labels."""
    images, labels = synthetic_digits(n, seed)
    small = images.reshape(n, SIDE, 2, SIDE, 2).astype(np.float32).mean(axis=(2, 4)) / np.float32(255)
    return small.reshape(n, SIDE * SIDE), labels


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="what is torch.nn really")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    log.clear()
    history.clear()
    dtype = mg.float64 if args.double else mg.float32
    models = []

    def built(key, model):  # the test hook: records or loads the starting weights
        model = model.to(dtype)
        if init is not None:
            init(key, model)
        models.append(model)
        return model

    (x_train, y_train), (x_valid, y_valid) = load_mnist(64, 0), load_mnist(32, 1)
    x_train, y_train, x_valid, y_valid = map(
        mg.tensor, (x_train, y_train, x_valid, y_valid)
    )
    x_train, x_valid = x_train.to(dtype), x_valid.to(dtype)
    n, c = x_train.shape
    show(tuple(x_train.shape), y_train.min().item(), y_train.max().item())

    # Neural net from scratch (without torch.nn)
    weights = mg.randn(SIDE * SIDE, 10, dtype=dtype) / math.sqrt(SIDE * SIDE)
    weights.requires_grad_()
    bias = mg.zeros(10, dtype=dtype, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    bs = 16  # batch size

    xb = x_train[0:bs]  # a mini-batch from x
    preds = model(xb)  # predictions
    show(preds[0].shape == (10,), preds.shape == (bs, 10))

    def nll(input, target):
        return -input[range(target.shape[0]), target].mean()

    loss_func = nll

    yb = y_train[0:bs]
    history.append(loss_func(preds, yb).item())

    def accuracy(out, yb):
        preds = mg.argmax(out, dim=1)
        return (preds == yb).float().mean()

    history.append(accuracy(preds, yb).item())

    lr = 0.5  # learning rate
    epochs = args.epochs  # how many epochs to train for

    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            with mg.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()

    history.extend([loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item()])

    # Using torch.nn.functional
    loss_func = F.cross_entropy

    def model(xb):
        return xb @ weights + bias

    history.extend([loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item()])

    # Refactor using nn.Module
    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = nn.Parameter(mg.randn(SIDE * SIDE, 10) / math.sqrt(SIDE * SIDE))
            self.bias = nn.Parameter(mg.zeros(10))

        def forward(self, xb):
            return xb @ self.weights + self.bias

    model = built("logistic", Mnist_Logistic())
    history.append(loss_func(model(xb), yb).item())

    def fit():
        for epoch in range(epochs):
            for i in range((n - 1) // bs + 1):
                start_i = i * bs
                end_i = start_i + bs
                xb = x_train[start_i:end_i]
                yb = y_train[start_i:end_i]
                pred = model(xb)
                loss = loss_func(pred, yb)

                loss.backward()
                with mg.no_grad():
                    for p in model.parameters():
                        p -= p.grad * lr
                    model.zero_grad()

    fit()
    history.append(loss_func(model(xb), yb).item())

    # Refactor using nn.Linear
    class Mnist_Logistic(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(SIDE * SIDE, 10)

        def forward(self, xb):
            return self.lin(xb)

    model = built("linear", Mnist_Logistic())
    history.append(loss_func(model(xb), yb).item())
    fit()
    history.append(loss_func(model(xb), yb).item())

    # Refactor using torch.optim
    def get_model():
        model = built("linear_optim", Mnist_Logistic())
        return model, optim.SGD(model.parameters(), lr=lr)

    model, opt = get_model()
    history.append(loss_func(model(xb), yb).item())

    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            opt.step()
            opt.zero_grad()

    history.append(loss_func(model(xb), yb).item())

    # Refactor using Dataset
    train_ds = TensorDataset(x_train, y_train)
    model, opt = get_model()

    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb, yb = train_ds[i * bs: i * bs + bs]
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            opt.step()
            opt.zero_grad()

    history.append(loss_func(model(xb), yb).item())

    # Refactor using DataLoader
    train_dl = DataLoader(train_ds, batch_size=bs)
    model, opt = get_model()

    for epoch in range(epochs):
        for xb, yb in train_dl:
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            opt.step()
            opt.zero_grad()

    history.append(loss_func(model(xb), yb).item())

    # Add validation
    train_ds = TensorDataset(x_train, y_train)
    train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)

    valid_ds = TensorDataset(x_valid, y_valid)
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)

    model, opt = get_model()

    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            opt.step()
            opt.zero_grad()

        model.eval()
        with mg.no_grad():
            valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)

        show(epoch, valid_loss / len(valid_dl))
        history.append((valid_loss / len(valid_dl)).item())

    # Create fit() and get_data()
    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)

        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()

        return loss.item(), len(xb)

    def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
        for epoch in range(epochs):
            model.train()
            for xb, yb in train_dl:
                loss_batch(model, loss_func, xb, yb, opt)

            model.eval()
            with mg.no_grad():
                losses, nums = zip(
                    *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
                )
            val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

            show(epoch, val_loss)
            history.append(val_loss)

    def get_data(train_ds, valid_ds, bs):
        return (
            DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2),
        )

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    model, opt = get_model()
    fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    # Switch to CNN
    class Mnist_CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
            self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
            self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

        def forward(self, xb):
            xb = xb.view(-1, 1, SIDE, SIDE)
            xb = F.relu(self.conv1(xb))
            xb = F.relu(self.conv2(xb))
            xb = F.relu(self.conv3(xb))
            xb = F.avg_pool2d(xb, 2)
            return xb.view(-1, xb.size(1))

    lr = 0.1

    model = built("cnn", Mnist_CNN())
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    # Using nn.Sequential
    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    def preprocess(x):
        return x.view(-1, 1, SIDE, SIDE)

    model = built("sequential", nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        Lambda(lambda x: x.view(x.size(0), -1)),
    ))

    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    fit(epochs, model, loss_func, opt, train_dl, valid_dl)

    # Wrapping DataLoader
    def preprocess(x, y):
        return x.view(-1, 1, SIDE, SIDE), y

    class WrappedDataLoader:
        def __init__(self, dl, func):
            self.dl = dl
            self.func = func

        def __len__(self):
            return len(self.dl)

        def __iter__(self):
            for b in self.dl:
                yield (self.func(*b))

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    train_dl = WrappedDataLoader(train_dl, preprocess)
    valid_dl = WrappedDataLoader(valid_dl, preprocess)

    model = built("adaptive", nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    ))

    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl)
    for line in log:
        print(line)
    return [float(h) for h in history], tuple(models)


if __name__ == "__main__":
    main()
