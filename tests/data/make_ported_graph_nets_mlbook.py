"""Regenerate ``tests/data/ported_graph_nets_mlbook_reference.npz``: the PyTorch runs of
``examples/ported/graph_nets_mlbook.py`` (chapter 18 of rasbt/machine-learning-book: a hand-written graph
convolution over block-diagonal batches, and the QM9 regressor's ``NNConv``/``global_add_pool`` written
out), read with the rename undone, in float32 and float64 (``tests/test_ported_graph_nets_mlbook.py``
replays ``RUNS``).  The weights start from ``ported_small.start_weights`` (seed 18); stored are part 1's
batched outputs and its batch-versus-alone check, part 2's losses and predictions, and digests of the
final weights.

    python tests/data/make_ported_graph_nets_mlbook.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"graph_nets": [], "graph_nets_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture

    write_fixture("graph_nets_mlbook", RUNS, Path(__file__).with_name("ported_graph_nets_mlbook_reference.npz"),
                  seed=18)


if __name__ == "__main__":
    main()
