"""Regenerate ``tests/data/ported_pyg_gnn_reference.npz``: ``examples/ported/pyg_gnn.py`` (PyTorch
Geometric's pure-PyTorch layers and training loops) run as torch from its ported source with the rename
undone, once a command line below, through ``ported_small_torch.write_fixture`` (NumPy makes the graphs;
the weights start from ``ported_small.start_weights`` of the seed below).
``tests/test_ported_pyg_gnn.py`` replays it.

    python tests/data/make_ported_pyg_gnn.py        # needs torch; the test does not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

#: ({run: argv}, seed of the start weights, names kept as the program built them, names stored whole,
#: weights left out: TransformerConv's key bias, whose true gradient is 0 (the query times it is the same
#: for every edge of a softmax) and which Adam moves by round-off alone, by about lr in float32)
PYG_GNN = ({"pyg_gnn_f64": ["--double"], "pyg_gnn": []}, 101, (), ("conv2.",), {"lin_key.bias": slice(None)})


def main() -> None:
    sys.path.insert(0, str(HERE))
    from ported_small_torch import write_fixture

    runs, seed, keep, whole, excused = PYG_GNN
    write_fixture("pyg_gnn", runs, HERE / "ported_pyg_gnn_reference.npz", seed=seed, keep=keep, whole=whole,
                  excused=excused)


if __name__ == "__main__":
    main()
