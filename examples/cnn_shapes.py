"""A small CNN that tells generated images of squares, crosses and circles apart.

    python examples/cnn_shapes.py              # ~20 s, prints the test accuracy
    python examples/cnn_shapes.py --steps 5    # a quick smoke run

Images are drawn here (16x16, random size, position and noise), so there is
nothing to download.
"""

from __future__ import annotations

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

CLASSES = ("square", "cross", "circle")


def draw(kind: int, rng: np.random.Generator, size: int = 16) -> np.ndarray:
    img = np.zeros((size, size), dtype=np.float32)
    r = int(rng.integers(3, 6))
    cy, cx = (int(v) for v in rng.integers(r + 1, size - r - 1, 2))
    yy, xx = np.mgrid[:size, :size]
    if kind == 0:
        img[(abs(yy - cy) == r) & (abs(xx - cx) <= r)] = 1
        img[(abs(xx - cx) == r) & (abs(yy - cy) <= r)] = 1
    elif kind == 1:
        img[(yy == cy) & (abs(xx - cx) <= r)] = 1
        img[(xx == cx) & (abs(yy - cy) <= r)] = 1
    else:
        d = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
        img[np.abs(d - r) < 0.6] = 1
    return img + rng.normal(0, 0.15, img.shape).astype(np.float32)


def make_images(n: int, seed: int):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), n)
    images = np.stack([draw(int(k), rng) for k in labels])[:, None]
    return images, labels


class ShapeNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(16 * 4 * 4, len(CLASSES)))

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return self.classifier(self.features(x))


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    mg.manual_seed(args.seed)
    train_x, train_y = make_images(2000, seed=args.seed)
    test_x, test_y = make_images(300, seed=args.seed + 1)
    model = ShapeNet()
    opt = mg.optim.AdamW(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(args.seed)
    for step in range(1, args.steps + 1):
        idx = rng.integers(0, len(train_x), args.batch_size)
        loss = F.cross_entropy(model(mg.tensor(train_x[idx])), mg.tensor(train_y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % max(1, args.steps // 5) == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    model.eval()
    with mg.no_grad():
        pred = model(mg.tensor(test_x)).argmax(axis=1).numpy()
    accuracy = float((pred == test_y).mean())
    print(f"test accuracy: {accuracy:.1%} on {len(test_y)} images")
    return accuracy


if __name__ == "__main__":
    main()
