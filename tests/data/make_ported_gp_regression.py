"""Regenerate ``tests/data/ported_gp_regression_reference.npz``: the PyTorch runs of
``examples/ported/gp_regression.py`` (exact GP regression in plain PyTorch), read with the rename undone,
in float32 and float64 (``tests/test_ported_gp_regression.py`` replays ``RUNS``).  The raw parameters
start from ``ported_small.start_weights`` (seed 37); stored are the losses, the final likelihood three
ways (Cholesky, ``logdet``, ``MultivariateNormal``), the predictive means and variances, and the final
parameters whole.

    python tests/data/make_ported_gp_regression.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"gp": [], "gp_f64": ["--double"]}
WHOLE = ("raw_", "mean_constant")


def main() -> None:
    from ported_small_torch import write_fixture

    write_fixture("gp_regression", RUNS, Path(__file__).with_name("ported_gp_regression_reference.npz"), seed=37,
                  whole=WHOLE)


if __name__ == "__main__":
    main()
