"""``examples/ported/stable_diffusion.py`` -- kjsman's stable-diffusion-pytorch pipeline at tiny widths --
gives torch 2.13's numbers: the text context, each sampler step's latents, the decoded images and
their uint8 mean, for the k-LMS, Euler and Euler-ancestral samplers, image-to-image and without
guidance, as ``tests/data/make_ported_generative.py`` recorded them (torch's starting weights loaded,
its random draws replayed)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_stable_diffusion_matches_pytorch = program_test("stable_diffusion")
