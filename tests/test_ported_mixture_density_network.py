"""``examples/ported/mixture_density_network.py`` (Bishop's toy inverse problem: pi by softmax, sigma
by exp, mu; the likelihood by logsumexp of hand-written or ``distributions.Normal`` log densities,
``MixtureSameFamily`` as a check; samples by ``mg.multinomial`` and ``mg.normal``; Adam) gives
PyTorch's numbers: the torch runs ``tests/data/make_ported_mixture_density_network.py`` recorded,
from the same starting weights, with torch's draws replayed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import check_recorded_run  # noqa: E402


# as tests/data/make_ported_mixture_density_network.py ran them
@pytest.mark.parametrize("run, argv", [("mdn_f64", ["--double"]), ("mdn_dist_f64", ["--double", "--use-distributions"]),
                                       ("mdn_f32", [])])
def test_mixture_density_network_matches_pytorch(monkeypatch, run, argv):
    check_recorded_run(monkeypatch, "mixture_density_network", run, argv)
