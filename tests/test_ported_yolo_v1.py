"""aladdinpersson's YOLO (v1) from scratch, ported (``examples/ported/yolo_v1.py``: the darknet of BatchNorm
convolution blocks and its head, ``YoloLoss`` with ``torch.max(ious, dim=0)``'s int64 indices in float
arithmetic and slice writes into a non-leaf, the label matrix's writes, ``intersection_over_union``,
``non_max_suppression``, ``mean_average_precision`` with ``torch.cat`` of an int64 tensor and float
precisions and ``torch.trapz``, ``cellboxes_to_boxes``'s ``arange(7).repeat`` and ``.item()`` over each box),
gives torch 2.13's numbers: the training losses, the boxes kept and the mAPs
(``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_yolo_v1_matches_pytorch = small_program_test("yolo_v1", *SMALL["yolo_v1"])
