"""The checks of step 6: checkpoint a segment by replay.

A checkpointed segment must give the same output and the same gradients,
bit for bit, as the segment run plainly -- the replay runs the very same ops
on the very same inputs -- while the tape holds fewer bytes after forward.
The bytes are measured by the engine's memory ledger (:mod:`minigrad_ckpt.memory`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..backend import host_numpy as np
from .grading import Check, Mismatch, attribute, own_work, property_check

__all__ = ["CHECKPOINT_CHECKS"]


def _two_layers(h: Any, w: Any) -> Any:
    """A segment whose parameter is used twice (its gradient is a sum inside the replay too)."""
    from .. import functional as F

    t = F.tanh(h @ w)
    t = F.tanh(t @ w)
    return t * t + h


def _chain(h: Any) -> Any:
    from .. import functional as F

    for _ in range(4):
        h = F.sin(h * 1.5 + 0.25)
    return h


_BLOCKS = {"tanh(tanh(h @ w) @ w) ** 2 + h": (_two_layers, True), "four sin layers": (_chain, False)}


def _run(block: Callable, with_w: bool, x0: np.ndarray, w0: np.ndarray, checkpoint: Callable | None) -> dict:
    """Forward and backward of ``loss = sum(block(2 * x, w) ** 2)``: output, gradients, bytes held after forward."""
    from .. import creation, memory

    x = creation.tensor(x0, requires_grad=True)
    w = creation.tensor(w0, requires_grad=True)
    args = (x * 2.0, w) if with_w else (x * 2.0,)
    with memory.track() as ledger:
        y = block(*args) if checkpoint is None else checkpoint(block, *args)
        loss = (y * y).sum()
        held = ledger.live("saved")
        loss.backward()
    return {"out": y.numpy(), "x.grad": _grad_of(x), "w.grad": _grad_of(w) if with_w else None, "held": held}


def _grad_of(t: Any) -> Any:
    """``t.grad`` as an array; the string ``"None"`` where no gradient reached ``t`` (the learner's backward
    returned None for it), for the comparison to name."""
    return "None" if t.grad is None else t.grad.numpy()


def _checkpoint_fn(module: ModuleType) -> Callable:
    attribute(module, "Replay", "the op class")
    return attribute(module, "checkpoint", "the function")


def _inputs(seed: int = 0, rows: int = 4, width: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rows, width)), rng.standard_normal((width, width)) * 0.5


def _same_bits(name: str, what: str, plain: np.ndarray, ckpt: Any, hint: str) -> None:
    if isinstance(ckpt, str):
        raise Mismatch(f"{what} of the segment `{name}` to be set by backward", f"{what} is None: no gradient "
                       "reached it", "backward returns one gradient per input of the segment -- mg.grad(output, "
                       "inputs, g) gives them all -- as a tuple of arrays in the inputs' order")
    got = np.asarray(ckpt)
    if got.shape != plain.shape or got.dtype != plain.dtype or got.tobytes() != plain.tobytes():
        diff = (float(np.max(np.abs(got - plain))) if got.shape == plain.shape and got.size else None)
        raise Mismatch(f"{what} of the segment `{name}` bit for bit as without checkpointing "
                       f"({plain.dtype}, shape {plain.shape})",
                       f"{got.dtype}, shape {got.shape}" + (f", largest difference {diff:.3g}" if diff else ""),
                       hint)


_REPLAY_HINT = ("backward must replay fn on the saved inputs with recording on (mg.enable_grad(), inputs as "
                "fresh tensors with requires_grad=True) and return mg.grad(output, inputs, g) -- the same ops "
                "in the same order give the same bits")


def _compare(module: ModuleType, name: str, x0: np.ndarray, w0: np.ndarray) -> tuple[dict, dict]:
    block, with_w = _BLOCKS[name]
    plain = _run(block, with_w, x0, w0, None)
    ckpt = _run(block, with_w, x0, w0, _checkpoint_fn(module))
    _same_bits(name, "the output", plain["out"], ckpt["out"],
               "forward must return fn(*inputs) itself, computed with mg.no_grad() (nothing recorded)")
    for key in ("x.grad", "w.grad"):
        if plain[key] is not None:
            _same_bits(name, key, plain[key], ckpt[key], _REPLAY_HINT)
    return plain, ckpt


def _same_results(module: ModuleType) -> None:
    for name in _BLOCKS:
        _compare(module, name, *_inputs())


def _fewer_bytes(module: ModuleType) -> None:
    for name in _BLOCKS:
        plain, ckpt = _compare(module, name, *_inputs(1, rows=16, width=8))
        if not ckpt["held"] < plain["held"]:
            raise Mismatch(f"fewer bytes held by the tape after forward than without checkpointing "
                           f"({plain['held']} bytes) for the segment `{name}`", f"{ckpt['held']} bytes",
                           "the segment's activations must not be recorded: run fn under mg.no_grad() in "
                           "forward, and let the op keep only its inputs (save_inputs = True, save_output = False)")


def _replays_once(module: ModuleType) -> None:
    calls = []

    def counted(h: Any, w: Any) -> Any:
        calls.append(1)
        return _two_layers(h, w)

    _run(counted, True, *_inputs(), _checkpoint_fn(module))
    if len(calls) != 2:
        raise Mismatch("fn to run twice: once in forward, once replayed in backward", f"{len(calls)} run(s)",
                       "forward runs fn once (without recording); backward replays it exactly once")


def _random_inputs(module: ModuleType) -> None:
    from hypothesis import strategies as st

    shapes = st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(0, 2 ** 32 - 1))
    property_check(shapes, lambda s: [_compare(module, name, *_inputs(s[2], s[0], s[1])) for name in _BLOCKS],
                   max_examples=10)


_ENGINES_CHECKPOINT = ("the engine's checkpointing is what this step writes: build it from an Op, mg.no_grad(), "
                       "mg.enable_grad() and mg.grad")

CHECKPOINT_CHECKS = [
    own_work({"minigrad_ckpt.checkpoint": _ENGINES_CHECKPOINT, "minigrad_ckpt.utils.checkpoint": _ENGINES_CHECKPOINT}),
    Check("same output and gradients, bit for bit, as without checkpointing", _same_results),
    Check("fewer bytes held after forward (the engine's memory ledger)", _fewer_bytes),
    Check("fn runs once in forward and is replayed once in backward", _replays_once),
    Check("bit for bit on random shapes and values (Hypothesis)", _random_inputs),
]
