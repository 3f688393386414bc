"""PyTorch's "Training a Classifier" tutorial (the 60 Minute Blitz's CIFAR-10 classifier), ported
(``examples/ported/cifar10_tutorial.py``), gives PyTorch's numbers: ``tests/data/make_ported_cifar10_tutorial.py``
ran the same source with the rename undone under torch 2.13.  It exercises a torchvision-style dataset and
transform (``ToTensor`` of HWC images, ``Normalize``), ``DataLoader`` batches, ``next(iter(loader))``,
``Conv2d`` / ``MaxPool2d`` / ``flatten`` / ``Linear``, ``CrossEntropyLoss``, ``SGD`` with momentum, ``save``
of a state dict and ``load_state_dict(load(PATH, weights_only=True))``, ``max(dim=1)``, and tensors of one
element indexing a tuple and compared in a ``zip``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import small_program_test  # noqa: E402

RUNS = {"cifar": [], "cifar_f64": ["--double"]}  # the generator's list

test_cifar10_tutorial_matches_pytorch = small_program_test("cifar10_tutorial", RUNS, seed=47)
