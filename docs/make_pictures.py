"""Regenerate the pictures in docs/img: ``python docs/make_pictures.py``.

- ``tape.svg``: the tape of a small expression after backward, values and
  gradients inline (``mg.viz.to_dot`` + Graphviz's ``dot``)
- ``tape-checkpointed.svg``: the same inside a checkpoint, before backward:
  dropped values dashed
- ``checkpoint-memory.png``: the memory ledger's timeline of one training step
  of a 32-layer MLP under four policies (``examples/checkpoint_memory.py``,
  needs matplotlib)

:func:`graphs` builds the DOT text of each graph picture; it needs nothing but
the package, so the tests check every picture's source even where Graphviz is
not installed, and render it where it is.
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


def graphs() -> dict[str, str]:
    """File name -> DOT text of every graph picture."""
    mg.manual_seed(0)
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    names = {id(x): "x", id(w): "w"}
    loss = mg.tanh(x * w).sum()
    loss.backward(retain_graph=True)  # gradients on the leaves, saved values kept for the picture
    out = {"tape.svg": mg.viz.to_dot(loss, names)}

    def block(t):
        return mg.tanh(t * w) * 2.0

    y = ck.checkpoint(block, x)
    out["tape-checkpointed.svg"] = mg.viz.to_dot((y * y).sum(), names)
    return out


def main() -> None:
    IMG.mkdir(exist_ok=True)
    for name, dot in graphs().items():
        mg.viz.render(dot, IMG / name)
    import checkpoint_memory

    checkpoint_memory.main(["--png", str(IMG / "checkpoint-memory.png")])
    print(f"wrote pictures to {IMG}")


if __name__ == "__main__":
    main()
