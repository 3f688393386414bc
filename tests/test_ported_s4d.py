"""S4D, the diagonal state-space layer, ported (``examples/ported/s4d.py``: the kernel from a complex
diagonal ``A = -exp(log_A_real) + 1j * A_imag`` and ``C`` held as ``view_as_real``, ``exp``/``einsum`` of
complex and ``.real``, the FFT convolution by ``rfft``/``irfft`` with ``n=2L``; AdamW with param groups
built from an ``_optim`` attribute (no weight decay, their own lr) and CosineAnnealingLR), gives torch
2.13's numbers: each step's loss, the groups' learning rates, sums of each gradient and the final
weights (``tests/data/make_ported_modern.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_modern import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_s4d_matches_pytorch = small_program_test("s4d", *SMALL["s4d"])
