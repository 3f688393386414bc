"""``examples/ported/ddpm.py`` -- the Annotated Diffusion Model's DDPM, made small -- gives torch
2.13's numbers: the losses, clipped gradient norms and sampled images' means of the run
``tests/data/make_ported_generative.py`` recorded, and the final weights, from torch's starting weights
and with torch's random draws replayed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_ddpm_matches_pytorch = program_test("ddpm")
