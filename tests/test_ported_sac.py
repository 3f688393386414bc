"""minimalRL's soft actor-critic, ported (``examples/ported/sac.py``), gives PyTorch's numbers: the torch
run ``tests/data/make_ported_sac.py`` recorded, from the same starting weights, with torch's standard
normals (``Normal.rsample``'s) replayed.  It exercises the policy loss through ``rsample`` and a ``tanh``
squash, a bare 0-d ``log_alpha`` (``requires_grad = True`` set on a tensor made from ``np.log``'s float64)
stepped by its own ``Adam``, ``torch.min(x, 1, keepdim=True)[0]``, ``smooth_l1_loss`` against targets made
under ``no_grad``, and target networks soft-updated through ``.data.copy_``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


def test_sac_matches_pytorch(monkeypatch):
    check_recorded_run(monkeypatch, "sac", "sac", [])
