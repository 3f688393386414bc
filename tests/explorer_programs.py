"""Small models for the tape explorer's tests: the same program built twice gives two
identical tapes, one for the explorer and one for ``mg.backward_steps`` to compare with."""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint


def mlp(seed: int = 0, checkpointed: bool = True, dtype: str = "float64") -> tuple[mg.Tensor, dict[str, mg.Tensor]]:
    """A three-layer MLP on a batch of 4; with ``checkpointed`` its middle block is one
    checkpointed segment (replayed in backward).  Returns the loss and the leaves by name."""
    rng = np.random.default_rng(seed)

    def param(*shape: int) -> mg.Tensor:
        return mg.tensor(rng.standard_normal(shape).astype(dtype) * 0.5, requires_grad=True)

    p = {"w1": param(3, 6), "b1": param(6), "w2": param(6, 6), "b2": param(6), "w3": param(6, 1)}
    x = mg.tensor(rng.standard_normal((4, 3)).astype(dtype))

    def block(h: mg.Tensor) -> mg.Tensor:
        return mg.tanh(h @ p["w2"] + p["b2"]) * h

    h = mg.tanh(x @ p["w1"] + p["b1"])
    h = checkpoint(block, h) if checkpointed else block(h)
    loss = ((h @ p["w3"]) ** 2).mean()
    return loss, p


def names(leaves: dict[str, mg.Tensor]) -> dict[int, str]:
    return {id(t): n for n, t in leaves.items()}


def light(s) -> dict:
    """One ``BackwardStep`` as summaries (the step itself is not kept, as the explorer keeps none:
    its gradients are views of the pass's arrays, and a view someone still holds is copied when
    it is handed to ``.grad``, which the memory ledger would count)."""
    from minigrad_ckpt.explorer import summarize

    return {"index": s.index, "op": s.op, "seq": s.node.seq, "released_bytes": s.released_bytes,
            "replay": None if s.replay is None else s.replay.index, "grad_output": summarize(s.grad_output),
            "grad_inputs": [summarize(g) for g in s.grad_inputs],
            "accumulated": [(id(t), summarize(g)) for t, g in s.accumulated]}


def spy_on_steps(monkeypatch) -> list[dict]:
    """What ``mg.backward_steps`` reports to the explorer, step by step, in the pass it runs.

    The ledger's byte counts are compared with this report of the same pass: two passes of
    the same program can count other bytes (the ledger keys arrays by ``id``, and which
    temporaries' ids are reused depends on the interpreter's heap)."""
    from minigrad_ckpt.explorer import record

    seen: list[dict] = []
    real = record.backward_steps

    def spying(*args, **kwargs):
        for s in real(*args, **kwargs):
            seen.append(light(s))
            yield s

    monkeypatch.setattr(record, "backward_steps", spying)
    return seen
