"""Regenerate ``tests/data/ported_saved_tensors_hooks_reference.npz``: the PyTorch runs of
``examples/ported/saved_tensors_hooks.py`` (the "Hooks for autograd saved tensors" tutorial), read
with the rename undone, in float32 and float64 (``tests/test_ported_saved_tensors_hooks.py`` replays
``RUNS``).  The first model starts from ``ported_small.start_weights`` (seed 17), the other three from
its starting weights; stored are the losses of the four ways of keeping the saved values,
``ported_small.records`` of the final weights, and the lines the tutorial prints (``<run>|log``).

    python tests/data/make_ported_saved_tensors_hooks.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"hooks": [], "hooks_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture_with_log

    out = Path(__file__).with_name("ported_saved_tensors_hooks_reference.npz")
    write_fixture_with_log("saved_tensors_hooks", RUNS, out, seed=17)


if __name__ == "__main__":
    main()
