"""The learning-rate schedulers refuse what PyTorch's refuse with PyTorch's exception types *and words*
(``pytest.raises(ValueError, match="Expected positive integer T_0")`` written for torch passes), in
PyTorch's order of checks, as the optimizers' refusals already did.  Before, the types were PyTorch's but
the words the engine's own (``CosineAnnealingWarmRestarts: T_0 must be a positive int, got 0``), and
SequentialLR took only an ``LRScheduler``, where PyTorch takes any object with an ``optimizer`` (and
refuses one without it with a TypeError).

torch's refusals: ``tests/data/torch_scheduler_errors.json`` (``tests/data/make_torch_scheduler_errors.py``,
which defines the cases); torch is not imported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from make_torch_scheduler_errors import CASES  # noqa: E402

TORCH = json.loads((DATA / "torch_scheduler_errors.json").read_text())["refusals"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_refusal_is_torchs(name):
    kind, words = TORCH[name]
    with pytest.raises(Exception) as caught:  # noqa: PT011 (the type is checked below, against torch's)
        CASES[name](mg.optim.lr_scheduler, mg.optim, mg.tensor)
    assert (type(caught.value).__name__, str(caught.value)) == (kind, words)
