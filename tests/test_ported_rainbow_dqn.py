"""``examples/ported/rainbow_dqn.py`` -- RL-Adventure's Rainbow notebook (noisy layers whose noise lives in
buffers refilled through ``copy_``/``ger``, a C51 projection by ``index_add_`` through ``view(-1)``,
``.data.clamp_`` before a ``log``, ``F.softmax`` without a dim, ``Variable(..., volatile=True)``) -- gives
torch 2.13's episode rewards, losses and final weights: the run ``tests/data/make_ported_rainbow_dqn.py``
recorded, from the same starting weights and with torch's ``randn`` noise replayed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_rainbow_dqn_matches_pytorch = program_test("rainbow_dqn")
