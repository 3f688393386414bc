"""``examples/ported/mixture_density_network.py`` (Bishop's toy inverse problem: pi by softmax, sigma
by exp, mu; the likelihood by logsumexp of hand-written or ``distributions.Normal`` log densities,
``MixtureSameFamily`` as a check; samples by ``mg.multinomial`` and ``mg.normal``; Adam) gives
PyTorch's numbers: the torch runs ``tests/data/make_ported_mixture_density_network.py`` recorded,
from the same starting weights, with torch's draws replayed."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import run_and_compare  # noqa: E402

REF = np.load(HERE / "data" / "ported_mixture_density_network_reference.npz")
RUNS = {  # run: argv, as tests/data/make_ported_mixture_density_network.py ran them
    "mdn_f64": ["--double"],
    "mdn_dist_f64": ["--double", "--use-distributions"],
    "mdn_f32": [],
}


@pytest.mark.parametrize("run", list(RUNS))
def test_mixture_density_network_matches_pytorch(monkeypatch, run):
    run_and_compare(monkeypatch, REF, run, "mixture_density_network", RUNS[run], float64="--double" in RUNS[run])
