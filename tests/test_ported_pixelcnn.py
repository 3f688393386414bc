"""``examples/ported/pixelcnn.py`` -- jzbontar's PixelCNN (masked convolutions by a buffer multiplied
into ``weight.data`` in place, BatchNorm, ``ReLU(True)``, ``F.cross_entropy`` on (N, C, H, W) logits) --
gives torch 2.13's numbers: the training losses, the test bits per dimension and, pixel by pixel, the
distribution each sampled pixel is drawn from (torch's ``multinomial`` draws replayed), and the final
weights (``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

implicit_softmax_dim = pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")  # F.softmax(x)
test_pixelcnn_matches_pytorch = implicit_softmax_dim(program_test("pixelcnn"))
