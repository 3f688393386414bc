"""pytorch/examples ``mnist_forward_forward/main.py`` (Hinton's forward-forward algorithm),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/mnist_forward_forward.py --epochs 20

Each layer -- a subclass of ``nn.Linear`` whose ``train(x_pos, x_neg)`` overrides
``Module.train`` and which owns its Adam optimizer -- is trained alone to make the "goodness"
(mean squared activity) high on images with their true label written into the first pixels and
low on images with a wrong label (``get_y_neg``, drawn with ``mg.randint``); the label is
predicted by trying all ten.  Small: 10x10 images of digits-like blobs made here, layers of
``[100, 32, 32]``; the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.optim import Adam
from minigrad_ckpt.utils.data import DataLoader, TensorDataset

args = None
device = None


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = mg.tensor(allowed_indices)[
            mg.randint(len(allowed_indices), size=(1,))
        ].item()
    return y_neg.to(device)


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(mg.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = mg.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        losses = []
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)
            losses += layer.losses
        return losses


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = mg.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs
        self.losses = []

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(mg.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = mg.log1p(
                mg.exp(
                    mg.cat([-g_pos + self.threshold, g_neg - self.threshold])
                )
            ).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.losses.append(loss.item())
            if i % args.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


def digits(n, seed):
    """Flattened, normalized 10x10 images of 10 classes (a blob whose place is the class)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    yy, xx = np.mgrid[0:10, 0:10]
    cy, cx = 2 + 2 * (labels // 4), 1.5 + 2.3 * (labels % 4)
    img = np.exp(-((yy - cy[:, None, None]) ** 2 + (xx - cx[:, None, None]) ** 2) / 3.0)
    img = (img + rng.uniform(0, 0.2, img.shape) - 0.1307) / 0.3081
    return mg.from_numpy(img.reshape(n, 100).astype(np.float32)), mg.from_numpy(labels)


def main(argv=None, init=None):
    global args, device
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20, metavar="N")
    parser.add_argument("--lr", type=float, default=0.03, metavar="LR")
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--train_size", type=int, default=40)
    parser.add_argument("--threshold", type=float, default=2)
    parser.add_argument("--test_size", type=int, default=20)
    parser.add_argument("--log-interval", type=int, default=5, metavar="N")
    args = parser.parse_args(argv)
    device = mg.device("cpu")
    mg.manual_seed(args.seed)

    train_loader = DataLoader(TensorDataset(*digits(args.train_size, seed=0)), batch_size=args.train_size)
    test_loader = DataLoader(TensorDataset(*digits(args.test_size, seed=1)), batch_size=args.test_size)
    net = Net([100, 32, 32])
    if init is not None:  # a test hook: records or loads the starting weights
        for i, layer in enumerate(net.layers):
            init(f'layer{i}', layer)
    x, y = next(iter(train_loader))
    x, y = x.to(device), y.to(device)
    x_pos = overlay_y_on_x(x, y)
    y_neg = get_y_neg(y)
    x_neg = overlay_y_on_x(x, y_neg)
    history = net.train(x_pos, x_neg)
    train_error = 1.0 - net.predict(x).eq(y).float().mean().item()
    print("train error:", train_error)
    x_te, y_te = next(iter(test_loader))
    x_te, y_te = x_te.to(device), y_te.to(device)
    test_error = 1.0 - net.predict(x_te).eq(y_te).float().mean().item()
    print("test error:", test_error)
    return history + [train_error, test_error], tuple(net.layers)


if __name__ == "__main__":
    main()
