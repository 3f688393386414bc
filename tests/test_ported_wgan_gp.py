"""``examples/ported/wgan_gp.py`` -- eriklindernoren's WGAN-GP, whose critic loss holds the norm of a
gradient taken with ``create_graph=True`` (double backward through Linear, LeakyReLU in place and, with
``--conv``, Conv2d, InstanceNorm2d and LayerNorm) -- gives torch 2.13's numbers: the critic and generator
losses, the penalties, and the final weights (``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_wgan_gp_matches_pytorch = program_test("wgan_gp")
