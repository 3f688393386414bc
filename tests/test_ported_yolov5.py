"""ultralytics/yolov5, ported (``examples/ported/yolov5.py``: ``Focus``, ``Conv``, ``C3``, ``SPPF``, ``Concat``
and ``Detect`` built by ``parse_model``; ``ComputeLoss``' ``build_targets`` with its boolean masks, advanced
indexing and index writes, CIoU through ``atan``, ``BCEWithLogitsLoss(pos_weight=...)``, ``FocalLoss`` and
``QFocalLoss``; nesterov SGD in ``smart_optimizer``'s three groups under the warmup and ``LambdaLR``;
``ModelEMA``'s in-place updates; the EMA model's inference through ``_make_grid``'s ``meshgrid``;
``non_max_suppression``; ``fuse_conv_and_bn``), gives torch 2.13's numbers: the losses, gradient norms and
learning rates, the inference output, the detections kept and the fused model's output, and the final
weights (``tests/data/make_ported_yolov5.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_yolov5 import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_yolov5_matches_pytorch = small_program_test("yolov5", *SMALL["yolov5"])
