"""Classify points on three interleaved 2-D spirals with a small MLP.

    python examples/mlp_spirals.py            # ~2 s, prints the training accuracy
    python examples/mlp_spirals.py --steps 20 # a quick smoke run

The data is generated here (no download); the model, loss and optimizer are
the PyTorch-style API of minigrad_ckpt.
"""

from __future__ import annotations

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F


def make_spirals(n_per_class: int = 100, n_classes: int = 3, noise: float = 0.2, seed: int = 0):
    """Points (N, 2) and labels (N,) on ``n_classes`` spiral arms."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(n_classes):
        r = np.linspace(0.0, 1.0, n_per_class)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.normal(0.0, noise, n_per_class)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(n_per_class, c))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    mg.manual_seed(args.seed)
    x_np, y_np = make_spirals(seed=args.seed)
    x, y = mg.tensor(x_np), mg.tensor(y_np)
    model = nn.Sequential(
        nn.Linear(2, args.hidden), nn.ReLU(),
        nn.Linear(args.hidden, args.hidden), nn.ReLU(),
        nn.Linear(args.hidden, 3),
    )
    opt = mg.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(1, args.steps + 1):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % max(1, args.steps // 5) == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    with mg.no_grad():
        accuracy = float((model(x).argmax(axis=1) == y).numpy().mean())
    print(f"training accuracy: {accuracy:.1%}")
    return accuracy


if __name__ == "__main__":
    main()
