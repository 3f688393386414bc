"""``checkpoint``'s own keywords are PyTorch's (``torch.utils.checkpoint.checkpoint`` in torch 2.13):
``use_reentrant``, ``context_fn``, ``determinism_check`` (``"default"``), ``debug``, ``early_stop``
and ``preserve_rng_state`` belong to ``checkpoint``; every other keyword goes to the function.

They used to be handed to the function (``TypeError: fn() got an unexpected keyword argument
'context_fn'``), and ``determinism_check="default"`` -- PyTorch's default value -- was refused.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F


def block(x, w, scale=1.0):
    return F.dropout((x @ w).tanh(), 0.3).sin() * scale


def gradients(wrap):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    w = mg.randn(4, 4, dtype=mg.float64, requires_grad=True)
    mg.manual_seed(1)
    y = wrap(x, w)
    (y * y).sum().backward()
    return [y.detach().numpy(), x.grad.numpy(), w.grad.numpy()]


@pytest.mark.parametrize("keywords", [
    {"use_reentrant": False, "determinism_check": "default"},
    {"use_reentrant": False, "debug": True},
    {"use_reentrant": False, "early_stop": False},
    {"use_reentrant": False, "preserve_rng_state": False, "scale": 2.0},
    {"use_reentrant": False, "context_fn": ck.noop_context_fn},
])
def test_pytorchs_keywords_belong_to_checkpoint_and_change_no_bit(keywords):
    scale = keywords.get("scale", 1.0)
    expected = gradients(lambda x, w: block(x, w, scale=scale))
    got = gradients(lambda x, w: ck.checkpoint(block, x, w, **keywords))
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)


def test_context_fn_wraps_the_forward_pass_and_each_replay():
    events = []

    class phase(contextlib.AbstractContextManager):  # re-enterable: the replay context serves each replay
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            events.append(f"enter {self.name} recomputing={mg.is_recomputing()}")

        def __exit__(self, *exc):
            events.append(f"exit {self.name}")

    def fn(x):
        events.append("fn")
        return x.sin().exp()

    x = mg.randn(5, requires_grad=True)
    y = ck.checkpoint(fn, x, use_reentrant=False, context_fn=lambda: (phase("forward"), phase("replay")))
    assert events == ["enter forward recomputing=False", "fn", "exit forward"]
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert events[3:] == ["enter replay recomputing=True", "exit replay"] * 2


def test_the_forward_context_is_in_force_in_the_function():
    """PyTorch's example: a forward context that turns recording off leaves nothing to differentiate."""
    x = mg.randn(3, requires_grad=True)
    y = ck.checkpoint(lambda t: t.sin(), x, use_reentrant=False, context_fn=lambda: (mg.no_grad(), mg.no_grad()))
    assert not y.requires_grad
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_use_reentrant_true_refuses_what_pytorchs_reentrant_checkpoint_refuses():
    x = mg.randn(3, 4, requires_grad=True)
    w = mg.randn(4, 4, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        ck.checkpoint(block, x, w, use_reentrant=True, scale=2.0)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        ck.checkpoint(block, x, w, use_reentrant=True, context_fn=lambda: (mg.no_grad(), mg.no_grad()))
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        ck.checkpoint(block, x, w, use_reentrant=True, debug=True)
    ck.checkpoint(block, x, w, use_reentrant=True, preserve_rng_state=False).sum().backward()


def test_an_unknown_determinism_check_names_the_choices_under_no_grad_too():
    with pytest.raises(ValueError, match="'default'"):
        ck.checkpoint(block, mg.randn(3, 4, requires_grad=True), mg.randn(4, 4), determinism_check="shapes")
    with mg.no_grad(), pytest.raises(ValueError, match="'default'"):  # PyTorch checks it before the grad mode
        ck.checkpoint(block, mg.randn(3, 4), mg.randn(4, 4), determinism_check="shapes")


def test_the_switches_of_torch_utils_checkpoint_are_offered_and_change_nothing():
    # torch.utils.checkpoint.set_checkpoint_early_stop / set_checkpoint_debug_enabled were missing
    # (AttributeError): code written for PyTorch wraps its checkpoints in them
    from minigrad_ckpt.utils.checkpoint import checkpoint, set_checkpoint_debug_enabled, set_checkpoint_early_stop

    mg.manual_seed(0)
    x = mg.randn(3, 4, requires_grad=True)
    (mg.tanh(x) * x).sum().backward()
    want, x.grad = x.grad.numpy().copy(), None
    with set_checkpoint_early_stop(False), set_checkpoint_debug_enabled(True):
        checkpoint(lambda t: mg.tanh(t) * t, x, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), want)
    with set_checkpoint_debug_enabled(None):
        pass
