"""PyTorch's "Knowledge Distillation" tutorial, ported (``examples/ported/knowledge_distillation.py``), gives
PyTorch's numbers and prints: ``tests/data/make_ported_knowledge_distillation.py`` ran the same source with the
rename undone under torch 2.13.  It exercises a convolutional teacher and students (``Conv2d``, ``MaxPool2d``,
``flatten``, ``Dropout``), ``Adam``, ``CrossEntropyLoss``, softened targets (softmax / log_softmax at a
temperature, the KL term written out and ``KLDivLoss(reduction="batchmean")``), ``avg_pool1d`` of flattened
features with ``CosineEmbeddingLoss``, a feature map matched through a convolutional regressor with
``MSELoss``, ``load_state_dict`` between modules of different classes, and a forward hook on the teacher.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_knowledge_distillation_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"distill": ([], False), "distill_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_knowledge_distillation_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("knowledge_distillation", argv, REF, run, seed=43, float64=float64)
