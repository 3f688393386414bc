"""``examples/ported/mixture_density_network.py`` (Bishop's toy inverse problem: pi by softmax,
sigma by exp, mu; the likelihood by logsumexp of hand-written or ``distributions.Normal`` log
densities, ``MixtureSameFamily`` as a check; samples by ``mg.multinomial`` and ``mg.normal``; Adam)
gives PyTorch's numbers: ``tests/data/make_ported_mixture_density_network.py`` ran the same source
as a torch program (offline; torch is not needed here).

Every run starts from the same weights; the draws of ``multinomial`` and ``normal`` are torch's,
replayed in order.  float64 agrees to 1e-10, float32 to round-off.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_check import check_port  # noqa: E402


@pytest.mark.parametrize("run, argv, float64", [("mdn_f64", ["--double"], True),
                                                ("mdn_dist_f64", ["--double", "--use-distributions"], True),
                                                ("mdn_f32", [], False)])
def test_mixture_density_network_matches_pytorch(monkeypatch, run, argv, float64):
    check_port(monkeypatch, "mixture_density_network", run, argv, "mdn_f64", float64)
