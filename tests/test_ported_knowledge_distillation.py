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

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import small_program_test  # noqa: E402

RUNS = {"distill": [], "distill_f64": ["--double"]}  # the generator's list

test_knowledge_distillation_matches_pytorch = small_program_test("knowledge_distillation", RUNS, seed=43)
