"""Regenerate ``tests/data/ported_mixture_density_network_reference.npz``:
``examples/ported/mixture_density_network.py`` run as a torch program by ``ported_runs.record_runs``
(which says what is stored).

    python tests/data/make_ported_mixture_density_network.py        # needs torch; the tests do not

Runs: the hand-written log density and ``distributions.Normal``'s in float64, the first in float32
(all from the first run's weights).  The draws replayed are ``torch.multinomial`` and
``torch.normal``'s; stored: each run's history (the losses, two held-out likelihoods, the samples)
and weights.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_runs import record_runs  # noqa: E402

RUNS = {"mdn_f64": ["--double"], "mdn_dist_f64": ["--double", "--use-distributions"],
        "mdn_f32": []}

if __name__ == "__main__":
    record_runs("mixture_density_network", RUNS, HERE / "ported_mixture_density_network_reference.npz",
                draws=("multinomial", "normal"))
