"""Regenerate ``tests/data/ported_forward_ad_reference.npz``: the PyTorch runs of
``examples/ported/forward_ad.py`` (the "Forward-mode Automatic Differentiation" tutorial), read with the
rename undone, in float32 and float64 (``tests/test_ported_forward_ad.py`` replays ``RUNS``).  The three
``Linear`` layers start from ``ported_small.start_weights`` (seeds 53 to 55); stored are the history (primals
and tangents of every section), ``ported_small.records`` of the final weights, and the lines the tutorial
prints (``<run>|log``).

    python tests/data/make_ported_forward_ad.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"fwad": [], "fwad_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture_with_log

    out = Path(__file__).with_name("ported_forward_ad_reference.npz")
    write_fixture_with_log("forward_ad", RUNS, out, seed=53)


if __name__ == "__main__":
    main()
