"""``examples/ported/glow.py`` -- rosinality's Glow: squeezes, ActNorm with a data-dependent start, the
invertible 1x1 convolution by LU factors or by ``slogdet`` and ``inverse``, affine or additive coupling, a
learned prior, the reverse (sampling and reconstruction) pass -- gives torch 2.13's numbers: the losses in
bits per dimension, the sample's statistics, the reconstruction error, and the final weights, with torch's
``randn``/``rand_like`` draws replayed (``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_glow_matches_pytorch = program_test("glow")
