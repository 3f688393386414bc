"""``examples/ported/vqvae.py`` -- zalandoresearch's VQ-VAE: residual blocks whose ``ReLU(True)`` rewrites
their input in place, the codebook by ``argmin`` and ``scatter_``, the straight-through estimator, and
the EMA codebook that replaces its ``nn.Parameter``s each step -- gives torch 2.13's numbers: the
reconstruction errors, perplexities, the codes chosen and the reconstruction after training, and the
final weights (``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

pin_memory_unused = pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true")  # the notebook's
test_vqvae_matches_pytorch = pin_memory_unused(program_test("vqvae"))
