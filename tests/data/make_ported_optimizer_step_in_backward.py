"""Regenerate ``tests/data/ported_optimizer_step_in_backward_reference.npz``: the PyTorch runs of
``examples/ported/optimizer_step_in_backward.py`` (the "fusing the optimizer step into the backward pass"
tutorial), read with the rename undone, in float32 and float64 (``tests/test_ported_optimizer_step_in_backward.py``
replays ``RUNS``).  The model starts from ``ported_small.start_weights`` (seed 61), the fused copy from its
starting weights; stored are the losses of both ways, ``ported_small.records`` of the first model's final
weights (the attention's key bias left out), and the lines printed (``<run>|log``: no gradient left, the same weights).

    python tests/data/make_ported_optimizer_step_in_backward.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"fused": [], "fused_f64": ["--double"]}
# The attention's key bias: its true gradient is 0, Adam moves it by round-off alone (ported_small.records)
EXCUSED = {"in_proj_bias": slice(16, 32)}


def main() -> None:
    from ported_small_torch import write_fixture_with_log

    out = Path(__file__).with_name("ported_optimizer_step_in_backward_reference.npz")
    write_fixture_with_log("optimizer_step_in_backward", RUNS, out, seed=61, excused=EXCUSED)


if __name__ == "__main__":
    main()
