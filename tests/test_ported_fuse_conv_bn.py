"""PyTorch's "Fusing Convolution and Batch Norm using Custom Function" tutorial, ported
(``examples/ported/fuse_conv_bn.py``), gives PyTorch's numbers: ``tests/data/make_ported_fuse_conv_bn.py``
ran the same source with the rename undone under torch 2.13.  It exercises ``autograd.Function``\\ s with
hand-written backwards (``conv2d`` of the transposed input, ``conv_transpose2d``, a batch norm from saved
sums, a convolution recomputed in backward), ``once_differentiable``, ``gradcheck``, ``kaiming_uniform_``'s
module, ``F.relu_`` in place, ``BatchNorm2d(affine=False, track_running_stats=False)``, ``Adadelta``,
``StepLR`` and ``inference_mode``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_fuse_conv_bn_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"fuse": ([], False), "fuse_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_fuse_conv_bn_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("fuse_conv_bn", argv, REF, run, seed=31, float64=float64)
    assert list(REF[f"{run}|history"][:3]) == [1.0, 1.0, 1.0]  # every gradcheck passed
