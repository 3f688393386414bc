"""The tutorial "Reinforcement Learning (DQN)", ported (``examples/ported/dqn.py``), gives PyTorch's
numbers: ``tests/data/make_ported_dqn.py`` ran the same source with the rename undone under torch
2.13.  It exercises a replay memory of ``namedtuple`` batches, ``gather``, ``max(1).values`` and
``max(1).indices``, a boolean-mask assignment under ``no_grad``, ``SmoothL1Loss``,
``AdamW(amsgrad=True)``, ``clip_grad_value_`` and a soft update of a target network written over
``state_dict()`` items and loaded back.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_dqn_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402


def test_dqn_matches_pytorch():
    check_run("dqn", [], REF, "dqn", seed=7, float64=False, whole=("layer",))
