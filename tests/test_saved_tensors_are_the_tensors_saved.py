"""``ctx.saved_tensors`` in ``backward`` unpacks as the very tensors ``save_for_backward`` was given, as
PyTorch's SavedVariable does for everything that is not an output of the Function: a leaf input that
requires grad (still ``requires_grad``), an input that does not, an intermediate made in ``forward``, a
Parameter (its class), a tensor with attributes of the user's -- also inside a checkpoint segment
(test_autograd.py's ``test_checkpointing_without_reentrant_saved_object_identity``), and on
``grad_fn.saved_tensors`` outside backward.  The engine handed ``backward`` new tensors over the saved
values, none requiring grad: ``saved is x`` failed, a backward branching on ``requires_grad`` or on the
class saw otherwise.  Expected values: torch 2.13 on the same programs.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

SEEN: dict = {}


class SavesEverything(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, w):
        inner = x * 2
        SEEN["inner"] = inner
        ctx.save_for_backward(x, y, w, inner)
        return x * y * w

    @staticmethod
    def backward(ctx, g):
        SEEN["saved"] = x, y, w, _ = ctx.saved_tensors  # (once: PyTorch's checkpoint refuses a second read)
        return g * y * w, None, g * x * y


def _inputs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.tensor([3.0, 4.0])
    y.note = "mine"
    w = mg.nn.Parameter(mg.tensor([5.0, 6.0]))
    return x, y, w


@pytest.mark.parametrize("how", ["plain", "checkpoint"])
def test_backward_reads_the_tensors_it_saved(how):
    x, y, w = _inputs()
    if how == "plain":
        out = SavesEverything.apply(x, y, w)
    else:
        out = mg.utils.checkpoint.checkpoint(SavesEverything.apply, x, y, w, use_reentrant=False)
    out.sum().backward()
    sx, sy, sw, _ = SEEN["saved"]
    assert sy is y and sy.note == "mine"
    if how == "plain":  # (PyTorch's checkpoint replays on detached copies of inputs that require grad)
        assert sx is x and sw is w and sx.requires_grad and type(sw) is mg.nn.Parameter
    assert x.grad.tolist() == [15.0, 24.0] and w.grad.tolist() == [3.0, 8.0]


def test_an_intermediate_is_the_tensor_forward_made():
    x, y, w = _inputs()
    SavesEverything.apply(x, y, w).sum().backward()
    assert SEEN["saved"][3] is SEEN["inner"]


def test_grad_fn_saved_tensors_outside_backward_are_the_inputs():
    x, y, w = _inputs()
    out = SavesEverything.apply(x, y, w)
    saved = out.grad_fn.saved_tensors
    assert saved[0] is x and saved[1] is y and saved[2] is w


def test_a_tensor_given_new_values_since_is_not_handed_out():
    """``y.data = ...`` after forward rebinds ``y`` to other memory: backward keeps the values saved
    (a tensor over them, not ``y``), as before.  PyTorch differs here: its SavedVariable holds ``y``
    itself, so its backward reads the new values (x.grad would be zeros) -- left as the engine had it."""
    x, y, w = _inputs()
    out = SavesEverything.apply(x, y, w)
    y.data = mg.tensor([0.0, 0.0])
    out.sum().backward()
    assert SEEN["saved"][1] is not y
    assert SEEN["saved"][1].tolist() == [3.0, 4.0]
    assert x.grad.tolist() == [15.0, 24.0]
