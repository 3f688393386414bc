"""PyTorch Geometric's pure-PyTorch layers, ported (``examples/ported/pyg_gnn.py``: ``MessagePassing``'s
gather -> message -> scatter with ``scatter_add_``/``scatter_reduce_(include_self=False)``/``index_add_``,
``softmax`` over edges by a scatter max and over a CSR pointer by ``segment_reduce``, self loops and GCN
normalization, GCN/GAT/GATv2/SAGE(max)/GIN/GraphConv/TransformerConv, TopKPooling, global pools, a
GraphUNet, ``to_dense_batch``/``to_dense_adj``; node and graph classification with Adam), gives torch
2.13's numbers: the losses, gradient sums, eval outputs and final weights
(``tests/data/make_ported_pyg_gnn.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_pyg_gnn import PYG_GNN  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_pyg_gnn_matches_pytorch = small_program_test("pyg_gnn", *PYG_GNN)
