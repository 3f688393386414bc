"""Regenerate ``tests/data/ported_knowledge_distillation_reference.npz``: the PyTorch runs of
``examples/ported/knowledge_distillation.py`` (the "Knowledge Distillation" tutorial), read with the rename
undone, in float32 and float64 (``tests/test_ported_knowledge_distillation.py`` replays ``RUNS``).  The teacher
and the three students built from scratch start from ``ported_small.start_weights`` (seeds 43 to 46); stored
are the history (each training's epoch losses, the test accuracies, the KL check and the hook check) and
``ported_small.records`` of the final weights (the printed lines show the history's numbers).

    python tests/data/make_ported_knowledge_distillation.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"distill": [], "distill_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture

    out = Path(__file__).with_name("ported_knowledge_distillation_reference.npz")
    write_fixture("knowledge_distillation", RUNS, out, seed=43)


if __name__ == "__main__":
    main()
