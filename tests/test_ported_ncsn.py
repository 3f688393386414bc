"""``examples/ported/ncsn.py`` -- ermongroup's score matching losses (denoising, annealed over noise
levels, sliced and its variance-reduced form, whose loss holds ``autograd.grad(..., create_graph=True)``)
and annealed Langevin dynamics -- gives torch 2.13's numbers: the losses, the Langevin iterates' sums
and the final weights, with torch's draws replayed (``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_ncsn_matches_pytorch = program_test("ncsn")
