"""Chapter 18 of rasbt/machine-learning-book, ported (``examples/ported/graph_nets_mlbook.py``), gives
PyTorch's numbers: ``tests/data/make_ported_graph_nets_mlbook.py`` ran the same source with the rename
undone under torch 2.13.  Part 1 batches dict samples through a ``collate_fn`` into a block-diagonal
adjacency (slice assignment of one tensor into another), a 0/1 batch matrix and ``clamp(0)``; part 2 trains
an edge-conditioned convolution (``NNConv``: per-edge weight matrices from a small net, gathered by source
node, summed into target nodes by ``index_add_``) with ``scatter_add_`` graph pooling and Adam.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_graph_nets_mlbook_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"graph_nets": ([], False), "graph_nets_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_graph_nets_mlbook_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("graph_nets_mlbook", argv, REF, run, seed=18, float64=float64)
    history = REF[f"{run}|history"]
    assert history[8] == 1.0  # part 1: the second graph alone gives what it gives in its batch
