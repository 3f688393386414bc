"""Regenerate the fixture of ``examples/ported/yolov5.py`` (ultralytics/yolov5's model, loss, NMS, EMA and
fusing), ``tests/data/ported_yolov5_reference.npz``: the program run as torch from its ported source with the
rename undone, once a command line below, through ``ported_small_torch.write_fixture`` (NumPy makes the
images and labels; the weights start from ``ported_small.start_weights`` of the seed below, the anchors kept
as the model built them).  ``tests/test_ported_yolov5.py`` replays it.

    python tests/data/make_ported_yolov5.py        # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

#: ({run: argv}, seed of the start weights, names kept as the program built them, names stored whole)
SMALL = {
    "yolov5": ({"yolov5_f64": ["--double"], "yolov5_qfocal_f64": ["--double", "--focal", "qfocal"],
                "yolov5": ["--focal", "focal"]}, 101, ("model.24.anchors",), ("model.24.m.0.",)),
}


def main() -> None:
    sys.path.insert(0, str(HERE))
    from ported_small_torch import write_fixture

    runs, seed, keep, whole = SMALL["yolov5"]
    write_fixture("yolov5", runs, HERE / "ported_yolov5_reference.npz", seed=seed, keep=keep, whole=whole)


if __name__ == "__main__":
    main()
