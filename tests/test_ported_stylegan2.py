"""``examples/ported/stylegan2.py`` -- rosinality's StyleGAN2: modulated convolutions as grouped ``conv2d`` /
``conv_transpose2d`` over a ``(1, batch*channels, h, w)`` view, ``upfirdn2d``'s native FIR resampling
(``F.pad`` with negative crops, ``permute``, a flipped-kernel ``conv2d``, strided slicing), the
minibatch-stddev discriminator, and train.py's lazy regularizers -- R1 and the path-length penalty, each
a gradient taken with ``create_graph=True`` and then differentiated -- with style mixing, ``requires_grad``
toggling, Adam and the EMA generator, then generate.py's truncation -- gives torch 2.13's numbers: the
losses, scores and penalties of each step, the truncated samples' sums and the sums of the final weights
of the generator, the discriminator and the EMA generator (``tests/data/make_ported_stylegan2.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_stylegan2_matches_pytorch = program_test("stylegan2")
