"""mixup and CutMix training, ported (``examples/ported/mixup.py``: facebookresearch's ``mixup-cifar10`` and
clovaai's ``CutMix-PyTorch`` steps; ``--soft`` mixes one-hot targets into ``F.cross_entropy``'s probabilities
with ``label_smoothing``), gives torch 2.13's numbers: the losses, each batch's ``lam``, the epochs' mean loss
and mixed accuracy, and the final weights (``tests/data/make_ported_portfunc.py``; ``torch.randperm``
replayed, ``lam`` and the boxes NumPy's draws on both sides).  It exercises a NumPy float64 ``lam`` times a
tensor (float32 stays float32), advanced-index mixing, a box pasted through ``x[:, :, a:b, c:d] =`` with
NumPy integer bounds, ``max(1)``, ``eq(...).sum().float()``, BatchNorm2d, SGD with momentum and weight decay."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_mixup_matches_pytorch = program_test("mixup")
