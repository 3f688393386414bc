"""What the ported programs load instead of downloading: torchvision's ``datasets.MNIST`` and
``transforms`` in the shape the programs use, over a small synthetic digit set made here.

No network is reachable where these examples are tested, so ``MNIST`` does not read the real
data set: it draws 28x28 ``uint8`` images of ten classes from a fixed seed (each class a
fixed stroke pattern, shifted by up to two pixels, with noise). The API is torchvision's, so
the training program itself is the original after a rename. The same images feed the
PyTorch runs that recorded the reference losses (``tests/data/make_ported_reference.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

import minigrad_ckpt as mg


def synthetic_digits(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` images (n, 28, 28) uint8 and labels (n,) int64, the same for the same seed."""
    templates = np.random.default_rng(1234).random((10, 24, 24)) > 0.72
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    images = np.zeros((n, 28, 28), np.float64)
    shifts = rng.integers(0, 5, (n, 2))
    for i, (label, (dy, dx)) in enumerate(zip(labels, shifts)):
        images[i, dy:dy + 24, dx:dx + 24] = templates[label] * 200.0
    images += rng.random((n, 28, 28)) * 55.0
    return images.astype(np.uint8), labels.astype(np.int64)


class _MNIST:
    """torchvision's ``datasets.MNIST(root, train, download, transform)`` over :func:`synthetic_digits`."""

    def __init__(self, root: str, train: bool = True, download: bool = False,
                 transform: Callable[[np.ndarray], Any] | None = None, size: int | None = None) -> None:
        n = size if size is not None else (1024 if train else 256)
        self.data, self.targets = synthetic_digits(n, seed=0 if train else 1)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, i: int) -> tuple[Any, int]:
        img = self.data[i]
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.targets[i])


class datasets:  # noqa: N801 - the module name the program imports
    MNIST = _MNIST


class _Compose:
    def __init__(self, steps: Sequence[Callable[[Any], Any]]) -> None:
        self.steps = list(steps)

    def __call__(self, x: Any) -> Any:
        for step in self.steps:
            x = step(x)
        return x


class _ToTensor:
    """A (H, W) uint8 image to a (1, H, W) float32 tensor in [0, 1], as torchvision's."""

    def __call__(self, img: np.ndarray) -> mg.Tensor:
        return mg.tensor(img[None].astype(np.float32) / np.float32(255.0))


class _Normalize:
    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        self.mean = np.asarray(mean, np.float32).reshape(-1, 1, 1)
        self.std = np.asarray(std, np.float32).reshape(-1, 1, 1)

    def __call__(self, x: mg.Tensor) -> mg.Tensor:
        return (x - mg.tensor(self.mean)) / mg.tensor(self.std)


class transforms:  # noqa: N801
    Compose = _Compose
    ToTensor = _ToTensor
    Normalize = _Normalize


def sine_waves(n: int = 100, length: int = 1000, period: int = 20, seed: int = 2) -> np.ndarray:
    """``time_sequence_prediction/generate_sine_wave.py``'s data, made in memory (float64)."""
    rng = np.random.RandomState(seed)
    x = np.empty((n, length), "int64")
    x[:] = np.array(range(length)) + rng.randint(-4 * period, 4 * period, n).reshape(n, 1)
    return np.sin(x / 1.0 / period).astype("float64")


def make_moons(n_samples: int = 100, noise: float | None = None, seed: int = 1337) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``make_moons`` (two interleaving half circles), made here with NumPy."""
    rng = np.random.RandomState(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    outer = np.stack([np.cos(np.linspace(0, np.pi, n_out)), np.sin(np.linspace(0, np.pi, n_out))], 1)
    inner = np.stack([1 - np.cos(np.linspace(0, np.pi, n_in)), 1 - np.sin(np.linspace(0, np.pi, n_in)) - 0.5], 1)
    X = np.concatenate([outer, inner])
    y = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_in, np.int64)])
    order = rng.permutation(n_samples)
    X, y = X[order], y[order]
    if noise is not None:
        X = X + rng.normal(scale=noise, size=X.shape)
    return X, y


@contextmanager
def default_dtype(double: bool) -> Iterator[None]:
    """The default dtype float64 (a program's ``--double``) or float32 inside, float32 again after:
    the ports that offer ``--double`` run in it, so that a test of them leaves the default as it was."""
    mg.set_default_dtype(mg.float64 if double else mg.float32)
    try:
        yield
    finally:
        mg.set_default_dtype(mg.float32)
