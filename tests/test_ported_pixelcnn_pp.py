"""``examples/ported/pixelcnn_pp.py`` -- pclucas14's PixelCNN++: shifted convolutions under
``weight_norm``, gated ResNet blocks with the concatenated ELU, the discretized mixture of logistics
loss, ``StepLR``, and sampling from the mixture -- gives torch 2.13's numbers: the losses in bits per
dimension, the sampled image's sum, and the final weights, with torch's ``uniform_`` fills replayed
(``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_pixelcnn_pp_matches_pytorch = program_test("pixelcnn_pp")
