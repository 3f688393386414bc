"""Segment Anything, ported (``examples/ported/sam.py``: windowed attention over a padded grid,
``get_rel_pos``' ``.long()`` lookups and decomposed relative positions by ``einsum``, random Fourier
features written into by boolean masks, the two-way transformer's downsampled attention, the mask
decoder's hypernetwork MLPs and IoU head, ``Sam.forward`` under ``no_grad`` with ``postprocess_masks``'
bilinear resizes, ``ResizeLongestSide``'s antialiased ``interpolate``, ``MaskData``, boxes, stability scores
and run-length encodings of the masks, and AdamW fine-tuning the mask decoder with the encoders frozen),
gives torch 2.13's numbers (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_sam_matches_pytorch = small_program_test("sam", *SMALL["sam"])
