"""Regenerate ``tests/data/ported_stylegan2_reference.npz``: ``examples/ported/stylegan2.py`` run as torch
from its ported source with the rename undone (``ported_record.py``), once in float64 and once in float32
(its history ends with the final weights' sums); ``tests/test_ported_stylegan2.py`` replays it.

    python tests/data/make_ported_stylegan2.py        # needs torch; the test does not

Besides the module functions' draws (``randn`` for the weights, the noise buffers, the latents, the
path-length projections through ``randn_like``), ``NoiseInjection``'s ``image.new_empty(...).normal_()``
is recorded as ``"Tensor.normal_"``, which the test writes into mg's tensor in its place.  Python's
``random`` (style mixing and its crossover layer) is seeded alike on both sides.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import make_ported_reference as reference  # noqa: E402
from ported_record import record  # noqa: E402

RUNS = {"stylegan2_f64": ["--double"], "stylegan2": []}

if __name__ == "__main__":
    tensor_draws = reference.RECORDED_TENSOR_DRAWS
    reference.RECORDED_TENSOR_DRAWS = (*tensor_draws, "normal_")
    try:
        record("stylegan2", RUNS, HERE / "ported_stylegan2_reference.npz", final_weights=())
    finally:
        reference.RECORDED_TENSOR_DRAWS = tensor_draws
