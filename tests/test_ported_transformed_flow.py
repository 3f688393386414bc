"""A flow of ``distributions.transforms.Transform`` subclasses in a ``TransformedDistribution``, ported
(``examples/ported/transformed_flow.py``), gives PyTorch's numbers: ``tests/data/make_ported_transformed_flow.py``
ran the same source with the rename undone under torch 2.13.  It exercises a ``Transform`` that is also an
``nn.Module`` (``_call``, ``_inverse``, ``log_abs_det_jacobian``, ``cache_size=1``), ``Independent(Normal)``,
``AffineTransform(event_dim=1)`` with learned parameters, ``TransformedDistribution.log_prob`` under
``Adam``, ``ComposeTransform``, its ``inv`` and ``log_abs_det_jacobian``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_transformed_flow_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"flow": ([], False), "flow_f64": (["--double"], True)}  # the generator's list
KEEP = ("base_", "couplings.0.mask", "couplings.1.mask", "couplings.2.mask", "couplings.3.mask")


@pytest.mark.parametrize("run", list(RUNS))
def test_transformed_flow_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("transformed_flow", argv, REF, run, seed=41, float64=float64, keep=KEEP)
