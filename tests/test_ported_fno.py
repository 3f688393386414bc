"""A Fourier Neural Operator, ported (``examples/ported/fno.py``: ``SpectralConv2d``'s complex weights as
``nn.Parameter``, ``fft.rfft2``/``irfft2``, the complex ``einsum`` of the kept modes written into slices of
a complex ``zeros``, GELU, the relative L2 loss through ``norm(x, 2, 1)``; Adam with weight decay on the
complex and real parameters, StepLR), gives torch 2.13's numbers: each step's loss and sums of each
gradient (real and imaginary parts), and the final weights (``tests/data/make_ported_modern.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_modern import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_fno_matches_pytorch = small_program_test("fno", *SMALL["fno"])
