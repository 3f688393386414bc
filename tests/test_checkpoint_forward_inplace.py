"""Forward mode's in-place writes inside ``mg.checkpoint.checkpoint``: a segment holds the version
box of an output an op there read (to recompute it rather than take it, once written), which
``func/inplace.py`` once counted as "a value saved for backward" and refused the write's tangent
("cannot carry its forward-mode tangent") -- only inside a checkpoint.

Expected values: the same program without the checkpoint (checkpointing changes no number), and
torch 2.13's ``torch.func.jvp(torch.func.grad(g), (x,), (v,))`` for the grad-enabled write:
``([4.5, 9, 13.5], [4.5, 0, 4.5])``.  A node that really saved the written value still refuses.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _program(no_grad: bool, saves_y: bool = False):
    def g(a):
        y = a * 1
        d = y.detach()  # noqa: F841 -- an alias of y's memory, alive across the write
        u = y.unsqueeze(0)[0]  # noqa: F841 -- a view read by an op of the segment
        z = y.sin() if saves_y else None  # sin saves y for its backward
        if no_grad:
            with mg.no_grad():
                y.mul_(1.5)
        else:
            y.mul_(1.5)
        out = (y * y).sum()
        return out + z.sum() if saves_y else out
    return g


def _jvp_of_grad(f, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    x = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device)
    v = mg.tensor([1.0, 0.0, 1.0], dtype=dtype, device=device)
    return mg.func.jvp(mg.func.grad(f), (x,), (v,))


def _checkpointed(g):
    return lambda a: mg.checkpoint.checkpoint(g, a)


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
@pytest.mark.parametrize("no_grad", [True, False], ids=["no_grad_write", "recorded_write"])
def test_a_write_inside_a_checkpoint_carries_its_tangent_as_without_it(device, dtype, no_grad):
    g = _program(no_grad)
    plain = _jvp_of_grad(g, device, dtype)
    ckpt = _jvp_of_grad(_checkpointed(g), device, dtype)
    for a, b in zip(ckpt, plain):
        assert a.dtype == dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    if not no_grad:  # torch 2.13's numbers
        np.testing.assert_allclose(ckpt[0].numpy(), [4.5, 9.0, 13.5], rtol=1e-6)
        np.testing.assert_allclose(ckpt[1].numpy(), [4.5, 0.0, 4.5], rtol=1e-6)


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpoint"])
def test_a_value_saved_for_backward_still_refuses_the_write(device, dtype, checkpointed):
    g = _program(no_grad=True, saves_y=True)
    with pytest.raises(RuntimeError, match="cannot carry its forward-mode tangent"):
        _jvp_of_grad(_checkpointed(g) if checkpointed else g, device, dtype)
