"""The tutorial "Neural Transfer Using PyTorch", ported (``examples/ported/neural_style.py``), gives
PyTorch's numbers: ``tests/data/make_ported_neural_style.py`` ran the same source with the rename
undone under torch 2.13.  It exercises ``ContentLoss``/``StyleLoss`` modules built around a Gram
matrix (``view``, ``mm``, ``t``, ``div``), a ``Sequential`` grown by ``add_module`` and cut by slicing,
``requires_grad_`` on the image and off the model, and ``LBFGS`` on the image with a closure that
writes ``input_img.data.clamp_(0, 1)``.

The run amplifies round-off (a style weight of 1e6, LBFGS without a line search): torch's own float64
run, its content image changed by one ulp, is 8e-11 away at the 21st closure call and 6e-7 at the
40th, so the scores are compared to 1e-10 for the first LBFGS step (20 calls) and to 1e-5 after;
float32 runs part at the 7th call already, and only float64 is compared.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_neural_style_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402


def test_neural_style_matches_pytorch_in_float64():
    check_run("neural_style", ["--double"], REF, "neural_style_f64", seed=11, float64=True,
              chaotic_after=40, chaotic_rtol=1e-5)
