"""Train an LSTM to tell whether a bit sequence holds more ones than zeros, batching with DataLoader.

    python examples/lstm_majority.py              # ~10 s, prints the held-out accuracy
    python examples/lstm_majority.py --epochs 2   # a quick smoke run

A sequence task a feed-forward net cannot solve position by position: the answer
depends on a running count over the whole sequence, which the LSTM has to keep in
its state. The data is generated here; ``random_split`` and the shuffling
``DataLoader`` draw from the engine generator, so ``--seed`` fixes everything.
"""

from __future__ import annotations

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.utils.data import DataLoader, TensorDataset, random_split


def make_bits(n: int, length: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` sequences of ``length`` (odd) bits, as (n, length, 1) float32, and the majority bit."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, (n, length))
    return bits[..., None].astype(np.float32), (2 * bits.sum(axis=1) > length).astype(np.int64)


class MajorityNet(nn.Module):
    """LSTM over the sequence; a linear layer on its final hidden state."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        _, (h, _) = self.lstm(x)   # h: (num_layers, N, hidden)
        return self.head(h[-1])


def accuracy(model: nn.Module, loader: DataLoader) -> float:
    model.eval()
    right = total = 0
    with mg.no_grad():
        for x, y in loader:
            right += int((model(x).argmax(axis=1) == y).numpy().sum())
            total += y.shape[0]
    model.train()
    return right / total


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--n", type=int, default=1200, help="sequences in all (80%% train, 20%% held out)")
    p.add_argument("--length", type=int, default=9, help="bits per sequence (odd)")
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    mg.manual_seed(args.seed)
    x, y = make_bits(args.n, args.length, args.seed)
    train, test = random_split(TensorDataset(mg.tensor(x), mg.tensor(y)), [0.8, 0.2])
    train_loader = DataLoader(train, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(test, batch_size=256)
    model = MajorityNet(args.hidden)
    opt = mg.optim.Adam(model.parameters(), lr=2e-2)
    sched = mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-2, epochs=args.epochs,
                                             steps_per_epoch=len(train_loader))
    for epoch in range(1, args.epochs + 1):
        total = 0.0
        for xb, yb in train_loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item()
        print(f"epoch {epoch:2d}  loss {total / len(train_loader):.4f}  held-out accuracy "
              f"{accuracy(model, test_loader):.1%}")
    acc = accuracy(model, test_loader)
    print(f"held-out accuracy: {acc:.1%}")
    return acc


if __name__ == "__main__":
    main()
