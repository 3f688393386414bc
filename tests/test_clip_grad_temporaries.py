"""``clip_grad_norm_`` over large gradients allocates no temporaries beyond what its arithmetic
needs, and keeps its values bit for bit: a 2-norm is ``sqrt(sum(x * x))`` in the gradient's dtype
(NumPy's pairwise sum), the clipped gradient is ``g * coef``.  Temporaries of a gradient's size
are measured with ``tracemalloc``, which sees NumPy's array memory."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

sys.path.insert(0, str(Path(__file__).parent))
from traced_memory import peak_bytes  # noqa: E402  (tests/traced_memory.py)

SIZE = 1 << 18  # 1 MiB of float32: far above anything else the call allocates


def test_a_two_norm_allocates_only_the_squares():
    """|x| was formed beside x * x though p = 2 never reads it: two temporaries of x's size."""
    x = mg.tensor(np.random.default_rng(0).standard_normal(SIZE).astype(np.float32))
    mg.linalg.vector_norm(x)  # (warm: the op's first call builds its caches)
    assert peak_bytes(lambda: mg.linalg.vector_norm(x)) < 1.5 * x.numpy().nbytes


@pytest.mark.parametrize("shape", [(2048, 512), (300, 7), (5,)])
def test_a_two_norm_is_the_square_root_of_the_pairwise_sum_of_squares(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    assert mg.linalg.vector_norm(mg.tensor(x)).numpy().tobytes() == np.sqrt(np.sum(x * x)).tobytes()
