"""Regenerate ``tests/data/ported_swin_block_reference.npz``: ``examples/ported/swin_block.py`` run as a
torch program by ``ported_runs.record_runs`` (which says what is stored).

    python tests/data/make_ported_swin_block.py        # needs torch; the tests do not

Runs: float64 and float32 (starting from the float64 run's weights, rounded).  The draws replayed are
DropPath's masks, ``x.new_empty(shape).bernoulli_(keep)`` (``"Tensor.bernoulli_"``); stored: each
run's history (loss, gradient norm and learning rate per step, then an eval output) and weights.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_runs import record_runs  # noqa: E402

RUNS = {"swin_f64": ["--double"], "swin_f32": []}

if __name__ == "__main__":
    record_runs("swin_block", RUNS, HERE / "ported_swin_block_reference.npz", tensor_draws=("bernoulli_",))
