"""What the ported CIFAR-10 programs (``cifar10_tutorial.py``, ``knowledge_distillation.py``) load instead of
downloading: torchvision's ``datasets.CIFAR10(root, train, download, transform)`` and the ``transforms`` they
use, over small colour images made here (no network is reachable where these examples are tested).

Each of the ten classes is a fixed smooth colour pattern (a sum of two sinusoids per channel); an image is its
class's pattern, shifted by up to a pixel, plus noise, as ``uint8`` of shape (H, W, 3) -- CIFAR-10's layout,
which ``ToTensor`` turns into a (3, H, W) float32 tensor in [0, 1] as torchvision's does (``Compose`` and
``Normalize`` are ``local_data``'s).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad_ckpt as mg
from local_data import transforms as _mnist_transforms

CLASSES = ('plane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck')


def colour_images(n: int, seed: int, size: int = 8, classes: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``n`` images (n, size, size, 3) uint8 and labels (n,) int64, the same for the same seed."""
    k = np.random.default_rng(4321).normal(size=(classes, 3, 2, 2)) * 0.9
    phase = np.random.default_rng(4322).uniform(0, 2 * np.pi, (classes, 3, 2))
    yy, xx = np.mgrid[0:size + 2, 0:size + 2].astype(np.float64)
    waves = np.sin(k[..., 0, None, None] * yy + k[..., 1, None, None] * xx + phase[..., None, None])
    templates = (waves.sum(axis=2) * 0.25 + 0.5).transpose(0, 2, 3, 1)  # (classes, size + 2, size + 2, 3)
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    shifts = rng.integers(0, 3, (n, 2))
    images = np.stack([templates[c, dy:dy + size, dx:dx + size] for c, (dy, dx) in zip(labels, shifts)])
    images = np.clip(images * 200.0 + rng.random(images.shape) * 55.0, 0, 255)
    return images.astype(np.uint8), labels.astype(np.int64)


class _CIFAR10:
    """torchvision's ``datasets.CIFAR10`` over :func:`colour_images` (``size`` images; 8x8 pixels)."""

    def __init__(self, root: str, train: bool = True, download: bool = False,
                 transform: Callable[[np.ndarray], Any] | None = None, size: int | None = None,
                 classes: int = 10) -> None:
        n = size if size is not None else (256 if train else 64)
        self.data, targets = colour_images(n, seed=10 if train else 11, classes=classes)
        self.targets = targets.tolist()
        self.classes = list(CLASSES[:classes])
        self.transform = transform

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, i: int) -> tuple[Any, int]:
        img = self.data[i]
        if self.transform is not None:
            img = self.transform(img)
        return img, self.targets[i]


class datasets:  # noqa: N801 - the module name the programs import
    CIFAR10 = _CIFAR10


class _ToTensor:
    """An (H, W, C) uint8 image to a (C, H, W) float32 tensor in [0, 1], as torchvision's."""

    def __call__(self, img: np.ndarray) -> mg.Tensor:
        return mg.tensor(np.ascontiguousarray(img.transpose(2, 0, 1)).astype(np.float32) / np.float32(255.0))


class transforms:  # noqa: N801
    Compose = _mnist_transforms.Compose  # (local_data's, as torchvision's serve every data set)
    ToTensor = _ToTensor
    Normalize = _mnist_transforms.Normalize
