"""PyTorch's "Learning PyTorch with Examples", ported (``examples/ported/learning_pytorch_examples.py``), gives
torch 2.13's numbers: ``tests/data/make_ported_learning_pytorch_examples.py`` recorded the same source's run with
the rename undone, and its ``randn`` draws are replayed here.  It exercises 0-d ``randn`` weights updated in
place with hand-written gradients and under ``no_grad`` (``grad = None``), ``x.unsqueeze(-1).pow(p)`` with an
integer tensor exponent, ``nn.Flatten(0, 1)``, ``MSELoss(reduction='sum')``, ``model.zero_grad()``,
``RMSprop``, ``nn.Parameter(randn(()))`` modules, ``SGD`` with momentum and a dynamic graph reusing a weight.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_learning_pytorch_examples_matches_pytorch = program_test("learning_pytorch_examples")
