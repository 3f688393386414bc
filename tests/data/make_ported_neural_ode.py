"""Regenerate ``tests/data/ported_neural_ode_reference.npz``: ``examples/ported/neural_ode.py`` run as a
torch program by ``ported_runs.record_runs`` (which says what is stored).

    python tests/data/make_ported_neural_ode.py        # needs torch; the tests do not

Runs: float64 and float32 (from the float64 run's weights of both models, ``func`` and ``diffeq``,
rounded); the program draws nothing from torch's generator (NumPy's makes its batches, the flow's
points and its Rademacher vector).  Stored: each run's history (losses and gradient norms of the RK4
fit, the flow's losses, the three divergences) and weights.  The ``--checkpoint`` run is not stored:
its numbers are the plain run's, to the bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_runs import record_runs  # noqa: E402

RUNS = {"ode_f64": ["--double"], "ode_f32": []}

if __name__ == "__main__":
    record_runs("neural_ode", RUNS, HERE / "ported_neural_ode_reference.npz")
