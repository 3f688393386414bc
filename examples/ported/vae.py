"""pytorch/examples ``vae/main.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/vae.py --epochs 2

A variational autoencoder: the reparameterization trick (``mg.randn_like``), a summed
binary cross-entropy and the KL term.  Sizes shrink (64 pixels, not 784) to run in a blink
on :mod:`local_data`'s synthetic images; the lines that differ are listed in ``README.md``.
"""

from __future__ import print_function

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import nn, optim
from minigrad_ckpt.utils.data import DataLoader, TensorDataset

PIXELS, HIDDEN, LATENT = 64, 32, 4


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(PIXELS, HIDDEN)
        self.fc21 = nn.Linear(HIDDEN, LATENT)
        self.fc22 = nn.Linear(HIDDEN, LATENT)
        self.fc3 = nn.Linear(LATENT, HIDDEN)
        self.fc4 = nn.Linear(HIDDEN, PIXELS)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = mg.exp(0.5*logvar)
        eps = mg.randn_like(std)
        return mu + eps*std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return mg.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, PIXELS))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, PIXELS), reduction='sum')
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2), Kingma and Welling, Appendix B
    KLD = -0.5 * mg.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def images(n, seed=0):
    """Blurry blobs in [0, 1], 8x8 (the stand-in for MNIST's digits)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:8, 0:8]
    cy, cx = rng.uniform(2, 6, (2, n, 1, 1))
    img = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 4.0)
    return img[:, None].astype(np.float32)


def train(model, optimizer, train_loader, epoch, log_interval=1):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset), loss.item() / len(data)))
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, train_loss / len(train_loader.dataset)))
    return train_loss / len(train_loader.dataset)


def test(model, test_loader):
    model.eval()
    test_loss = 0
    with mg.no_grad():
        for data, _ in test_loader:
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))
    return test_loss


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='VAE Example')
    parser.add_argument('--batch-size', type=int, default=16)
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    train_set = TensorDataset(mg.from_numpy(images(64, 0)), mg.zeros(64))
    test_set = TensorDataset(mg.from_numpy(images(32, 1)), mg.zeros(32))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=False)
    test_loader = DataLoader(test_set, batch_size=args.batch_size, shuffle=False)
    model = VAE()
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    history = []
    for epoch in range(1, args.epochs + 1):
        history.append(train(model, optimizer, train_loader, epoch))
        history.append(test(model, test_loader))
        with mg.no_grad():
            sample = mg.randn(8, LATENT)
            sample = model.decode(sample)
            history.append(sample.mean().item())
    return history, model


if __name__ == '__main__':
    main()
