"""Regenerate the pictures in docs/img: ``python docs/make_pictures.py`` (needs Graphviz and matplotlib).

- ``tape.svg``: the tape of a small expression (``mg.viz.to_dot`` + ``dot``)
- ``tape-checkpointed.svg``: the same inside a checkpoint, dropped values dashed
- ``checkpoint-memory.png``: the memory ledger's timeline of one training step
  of a 32-layer MLP under four policies (``examples/checkpoint_memory.py``)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

import minigrad_ckpt as mg  # noqa: E402
from minigrad_ckpt import checkpoint as ck  # noqa: E402

IMG = Path(__file__).with_name("img")


def main() -> None:
    IMG.mkdir(exist_ok=True)
    mg.manual_seed(0)
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    names = {id(x): "x", id(w): "w"}
    loss = mg.tanh(x * w).sum()
    mg.viz.render(mg.viz.to_dot(loss, names), IMG / "tape.svg")

    def block(t):
        return mg.tanh(t * w) * 2.0

    y = ck.checkpoint(block, x)
    mg.viz.render(mg.viz.to_dot((y * y).sum(), names), IMG / "tape-checkpointed.svg")

    import checkpoint_memory

    checkpoint_memory.main(["--png", str(IMG / "checkpoint-memory.png")])
    print(f"wrote pictures to {IMG}")


if __name__ == "__main__":
    main()
