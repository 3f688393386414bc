"""milesial's U-Net, ported (``examples/ported/unet.py``: BatchNorm double convolutions, max-pool downs, ups by
``ConvTranspose2d`` or bilinear ``Upsample(align_corners=True)``, the skip's ``F.pad`` to an odd size and
``cat``, cross entropy plus the multiclass Dice loss of ``one_hot(...).permute``, RMSprop with momentum and
weight decay, ``clip_grad_norm_``, ``ReduceLROnPlateau`` and ``channels_last``), gives torch 2.13's numbers
(``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_unet_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS, SEED, KEEP, WHOLE = SMALL["unet"]


@pytest.mark.parametrize("run", list(RUNS))
def test_unet_matches_pytorch(run):
    argv = RUNS[run]
    check_run("unet", argv, REF, run, seed=SEED, float64="--double" in argv, keep=KEEP, whole=WHOLE)
