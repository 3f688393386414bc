"""Regenerate ``tests/data/ported_transformed_flow_reference.npz``: the PyTorch runs of
``examples/ported/transformed_flow.py`` (a flow of ``Transform`` subclasses in a
``TransformedDistribution``), read with the rename undone, in float32 and float64
(``tests/test_ported_transformed_flow.py`` replays ``RUNS``).  The flow starts from
``ported_small.start_weights`` (seed 41); stored are the losses, the samples from fixed base points and
their log-probabilities, the inverse's checks, and ``ported_small.records`` of the final weights.

    python tests/data/make_ported_transformed_flow.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"flow": [], "flow_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture

    out = Path(__file__).with_name("ported_transformed_flow_reference.npz")
    write_fixture("transformed_flow", RUNS, out, seed=41, keep=("base_", "couplings.0.mask", "couplings.1.mask",
                                                                "couplings.2.mask", "couplings.3.mask"))


if __name__ == "__main__":
    main()
