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

import pytest
from optim_cases import torch_numbers
from seam_fixtures import programs

import minigrad_ckpt as mg

generator = programs("make_torch_scheduler_errors")
TORCH = torch_numbers("torch_scheduler_errors")["refusals"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(generator.CASES))
def test_each_refusal_is_torchs(name):
    kind, words = TORCH[name]
    with pytest.raises(Exception) as caught:  # noqa: PT011 (the type is checked below, against torch's)
        generator.CASES[name](mg.optim.lr_scheduler, mg.optim, mg.tensor)
    assert (type(caught.value).__name__, str(caught.value)) == (kind, words)
