"""milesial's U-Net, ported (``examples/ported/unet.py``: BatchNorm double convolutions, max-pool downs, ups by
``ConvTranspose2d`` or bilinear ``Upsample(align_corners=True)``, the skip's ``F.pad`` to an odd size and
``cat``, cross entropy plus the multiclass Dice loss of ``one_hot(...).permute``, RMSprop with momentum and
weight decay, ``clip_grad_norm_``, ``ReduceLROnPlateau`` and ``channels_last``), gives torch 2.13's numbers
(``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_unet_matches_pytorch = small_program_test("unet", *SMALL["unet"])
