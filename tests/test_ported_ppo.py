"""CleanRL's PPO, ported (``examples/ported/ppo.py``), gives PyTorch's numbers: the torch run
``tests/data/make_ported_ppo.py`` recorded, from torch's starting weights (``orthogonal_`` with a gain),
with ``Categorical.sample``'s draws replayed.  It exercises the clipped surrogate through ``max`` of two
losses that are equal wherever the ratio is inside the clip range (the gradient split between them),
``clamp``, the clipped value loss, ``Categorical(logits=...)``'s ``log_prob`` and ``entropy``, generalized
advantage estimation written row by row under ``no_grad``, minibatches picked by NumPy index arrays,
``clip_grad_norm_``'s returned norm, and ``Adam(eps=1e-5)`` with its learning rate annealed through
``param_groups``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


def test_ppo_matches_pytorch(monkeypatch):
    check_recorded_run(monkeypatch, "ppo", "ppo", ["--learning-rate", "0.02"])
