"""``examples/ported/realnvp.py`` -- senya-ashukha's RealNVP (masks, MultivariateNormal base) and
karpathy's AffineHalfFlow with ActNorm (logistic base) on moons -- gives torch 2.13's numbers: the
negative log-likelihoods, the inverse path's round trip and the bases' samples pushed through the
inverse, from torch's starting weights and with torch's draws replayed
(``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_realnvp_matches_pytorch = program_test("realnvp")
