"""Regenerate ``tests/data/ported_maml_reference.npz``: ``examples/ported/maml.py`` run as a
torch program by ``ported_runs.record_runs`` (which says what is stored).

    python tests/data/make_ported_maml.py        # needs torch; the tests do not

Runs: the fast-weights step (``autograd.grad(create_graph=True)``) and the ``torch.func`` one
(``--functional``), each in float64 and float32, all from the first run's weights; the program draws
nothing from torch's generator (NumPy's makes the tasks).  Stored: each run's history (the meta-loss
and the meta-gradient's norm per weight, each iteration) and weights.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_runs import record_runs  # noqa: E402

RUNS = {"maml_f64": ["--double"], "maml_functional_f64": ["--double", "--functional"], "maml_f32": [],
        "maml_functional_f32": ["--functional"]}

if __name__ == "__main__":
    record_runs("maml", RUNS, HERE / "ported_maml_reference.npz")
