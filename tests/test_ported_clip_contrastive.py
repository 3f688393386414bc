"""A CLIP-style contrastive model, ported (``examples/ported/clip_contrastive.py``: an image encoder with
BatchNorm and a causal text transformer whose end token is picked by ``argmax``, ``F.normalize``d
embeddings, a learnable ``logit_scale`` clamped by ``.data.clamp_`` after the step or by ``torch.clamp`` in
the forward pass -- both binding --, the symmetric cross-entropy with ``label_smoothing``, gradient
accumulation over micro-batches, ``clip_grad_norm_``; AdamW), gives torch 2.13's numbers: each micro-batch's
loss, each step's gradient norm and logit scale, sums of each gradient and the final weights
(``tests/data/make_ported_modern.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_modern import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_clip_contrastive_matches_pytorch = small_program_test("clip_contrastive", *SMALL["clip_contrastive"])
