"""PyTorch's "What is torch.nn really?" tutorial, ported (``examples/ported/nn_tutorial.py``), gives torch
2.13's numbers: ``tests/data/make_ported_nn_tutorial.py`` recorded the same source's run with the rename
undone, and its draws (``randn`` weights, the shuffles' ``randperm``) are replayed here.  It exercises
hand-made weights with ``requires_grad_()``, indexing by ``range`` and a tensor, updates under ``no_grad``
with ``grad.zero_()``, ``F.cross_entropy``, ``nn.Parameter`` modules with ``p -= p.grad * lr`` and
``zero_grad()``, ``nn.Linear``, ``optim.SGD`` (with momentum), ``TensorDataset`` slices, ``DataLoader``
(shuffled), a ``sum`` of loss tensors, ``zip(*[...])`` of ``(loss.item(), len(xb))``, strided
``Conv2d``, ``avg_pool2d``, ``nn.Sequential`` with ``Lambda`` layers, ``AvgPool2d`` and
``AdaptiveAvgPool2d``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_nn_tutorial_matches_pytorch = program_test("nn_tutorial")
