"""The tape explorer on a tape whose saved values went through saved-tensor hooks
(``mg.autograd.graph.saved_tensors_hooks`` around the forward pass, or
``grad_fn._raw_saved_result.register_hooks`` on one value): such a node's ``saved`` is a
``PackedSaved``, not a tuple.  With the memory ledger off (or turned on after the forward pass)
the explorer counts what the tape holds itself; it read every node's saved values as a tuple and
raised AttributeError ('tuple' object has no attribute 'dtype').  Now it counts what the ledger
would have held -- the values kept as they are, not what a pack hook made -- and the pass leaves
what ``backward()`` leaves."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.explorer import record_backward

_DEVICES = ["cpu", "strict"]


def _device(name: str, dtype: str) -> str:
    if name == "cpu":
        return "cpu"
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

    return "strict-f32" if dtype == "float32" else "strict"


def _leaf(dtype: str, device: str) -> mg.Tensor:
    return mg.tensor(np.array([0.5, -1.0, 2.0], dtype=dtype)).to(device).requires_grad_()


def _program(x: mg.Tensor, hooks: str) -> mg.Tensor:
    if hooks == "context":
        with mg.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            return (mg.tanh(x * 3.0) * x).sum()
    t = mg.tanh(x * 3.0)
    y = (t * t).sum()
    t.grad_fn._raw_saved_result.register_hooks(lambda v: v * 1, lambda v: v)
    return y


def _grad_by_backward(dtype: str, device: str, hooks: str) -> np.ndarray:
    x = _leaf(dtype, device)
    _program(x, hooks).backward()
    return x.grad.cpu().numpy()


@pytest.mark.parametrize("when", ["off", "after the forward pass"])
@pytest.mark.parametrize("hooks", ["context", "raw"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("device", _DEVICES)
def test_a_tape_with_saved_tensor_hooks_is_explored(hooks, when, dtype, device):
    device = _device(device, dtype)
    x = _leaf(dtype, device)
    loss = _program(x, hooks)
    with mg.memory.track() if when != "off" else contextlib.nullcontext():
        data = record_backward(loss)
        if when != "off":
            assert mg.memory.live("saved") == 0  # everything counted was released by the pass
    # (a tracking on since before the pass, with nothing of the tape left to count, is the tape's own)
    assert data["ledger"]["source"] == ("tracked" if when != "off" and hooks == "context" else "counted")
    # what the tape holds as it is: nothing (context hooks pack every saved array); the raw hook
    # packs Tanh's output alone, and the Mul after it keeps its two inputs (one buffer, t)
    held = {"context": 0, "raw": 3 * np.dtype(dtype).itemsize}[hooks]
    assert data["ledger"]["held_saved"] == held
    assert data["steps"][-1]["held_saved"] == 0
    assert x.grad.cpu().numpy().tobytes() == _grad_by_backward(dtype, device, hooks).tobytes()


def test_raw_hooks_count_what_a_tracked_forward_pass_holds():
    """Registered while the ledger tracks, the hook lets the packed value go at once: the count
    the explorer makes for an untracked tape is the tracked one."""
    with mg.memory.track():
        loss = _program(_leaf("float64", "cpu"), "raw")
        tracked = record_backward(loss)["ledger"]
    counted = record_backward(_program(_leaf("float64", "cpu"), "raw"))["ledger"]
    assert (tracked["source"], counted["source"]) == ("tracked", "counted")
    assert tracked["held_saved"] == counted["held_saved"]
