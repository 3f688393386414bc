"""Regenerate ``tests/data/ported_parametrizations_reference.npz``: the PyTorch runs of
``examples/ported/parametrizations.py`` (the "Parametrizations" tutorial), read with the rename undone,
in float32 and float64 (``tests/test_ported_parametrizations.py`` replays ``RUNS``).  Each layer starts
from ``ported_small.start_weights`` (seed 19 and on, in the order the program builds them); stored are
the numbers the tutorial shows and the training losses (``<run>|history``), ``ported_small.records`` of
the final weights of the orthogonal, positive definite and convolution layers, and the lines the
tutorial prints (``<run>|log``).

    python tests/data/make_ported_parametrizations.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"param": [], "param_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture_with_log

    out = Path(__file__).with_name("ported_parametrizations_reference.npz")
    write_fixture_with_log("parametrizations", RUNS, out, seed=19)


if __name__ == "__main__":
    main()
