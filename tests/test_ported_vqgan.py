"""``examples/ported/vqgan.py`` -- taming-transformers' VQGAN first stage: the Encoder/Decoder with GroupNorm,
swish and the bmm attention block, VectorQuantizer2's argmin codebook and straight-through estimator, LPIPS
(a stand-in backbone) plus L1, the PatchGAN discriminator with BatchNorm (updated twice a step) or the
data-initialized ActNorm, hinge and vanilla losses, the adaptive weight from two ``autograd.grad`` calls on
the decoder's last layer with ``retain_graph``, and two Adams stepped with Lightning's requires_grad
toggling -- gives torch 2.13's numbers in float64: every logged loss of each step and the codes after training
(``tests/data/make_ported_vqgan.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_vqgan_matches_pytorch = program_test("vqgan")
