"""A triplet network (the metric-learning tutorials' ``TripletNet`` with ``nn.TripletMarginLoss``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/triplet.py --epochs 2

An embedding network whose outputs are ``F.normalize``-d, trained on (anchor, positive,
negative) triplets from a custom ``Dataset`` whose items are dicts, batched by the
``DataLoader``'s default collation with ``drop_last``; SGD with Nesterov momentum and weight
decay under a ``MultiStepLR``; accuracy by ``F.pairwise_distance``.  In float64.  The data are
Gaussian clusters made here; the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.optim import SGD
from minigrad_ckpt.optim.lr_scheduler import MultiStepLR
from minigrad_ckpt.utils.data import DataLoader, Dataset


class TripletClusters(Dataset):
    """Triplets from ``n_classes`` Gaussian clusters in ``dim`` dimensions (fixed by ``seed``)."""

    def __init__(self, n, n_classes=4, dim=10, seed=0):
        rng = np.random.default_rng(seed)
        centers = rng.standard_normal((n_classes, dim)) * 2
        labels = rng.integers(0, n_classes, (n, 3))
        labels[:, 1] = labels[:, 0]
        labels[:, 2] = (labels[:, 0] + rng.integers(1, n_classes, n)) % n_classes
        self.points = centers[labels] + rng.standard_normal((n, 3, dim))
        self.labels = labels

    def __len__(self):
        return len(self.points)

    def __getitem__(self, idx):
        a, p, n = (mg.from_numpy(self.points[idx, k]) for k in range(3))
        return {'anchor': a, 'positive': p, 'negative': n, 'label': int(self.labels[idx, 0])}


class EmbeddingNet(nn.Module):
    def __init__(self, dim=10, hidden=16, out=4):
        super(EmbeddingNet, self).__init__()
        self.fc = nn.Sequential(nn.Linear(dim, hidden), nn.PReLU(),
                                nn.Linear(hidden, hidden), nn.PReLU(),
                                nn.Linear(hidden, out))

    def forward(self, x):
        return F.normalize(self.fc(x), p=2, dim=1)


class TripletNet(nn.Module):
    def __init__(self, embedding_net):
        super(TripletNet, self).__init__()
        self.embedding_net = embedding_net

    def forward(self, x1, x2, x3):
        return self.embedding_net(x1), self.embedding_net(x2), self.embedding_net(x3)


def train(model, loader, criterion, optimizer, epoch):
    model.train()
    losses = []
    for batch_idx, batch in enumerate(loader):
        optimizer.zero_grad()
        ea, ep, en = model(batch['anchor'], batch['positive'], batch['negative'])
        loss = criterion(ea, ep, en)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        print('Train Epoch: {} [{}]\tLoss: {:.6f}'.format(epoch, batch_idx, loss.item()))
    return losses


def test(model, loader, margin):
    model.eval()
    correct, total, test_loss = 0, 0, 0.0
    with mg.no_grad():
        for batch in loader:
            ea, ep, en = model(batch['anchor'], batch['positive'], batch['negative'])
            d_ap = F.pairwise_distance(ea, ep, 2)
            d_an = F.pairwise_distance(ea, en, 2)
            correct += (d_ap < d_an).sum().item()
            total += batch['label'].size(0)
            test_loss += F.triplet_margin_loss(ea, ep, en, margin=margin, reduction='sum').item()
    print('Test: accuracy {}/{}, loss {:.4f}'.format(correct, total, test_loss / total))
    return [correct / total, test_loss / total]


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Triplet network')
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--batch-size', type=int, default=12)
    parser.add_argument('--margin', type=float, default=1.0)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    train_loader = DataLoader(TripletClusters(64, seed=0), batch_size=args.batch_size, shuffle=False,
                              drop_last=True)
    test_loader = DataLoader(TripletClusters(40, seed=1), batch_size=16)
    model = TripletNet(EmbeddingNet()).double()
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    criterion = nn.TripletMarginLoss(margin=args.margin, p=2)
    optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    scheduler = MultiStepLR(optimizer, milestones=[1, 2], gamma=0.5)
    history = []
    for epoch in range(1, args.epochs + 1):
        history += train(model, train_loader, criterion, optimizer, epoch)
        history += test(model, test_loader, args.margin)
        scheduler.step()
    return history, model


if __name__ == '__main__':
    main()
