"""A custom ``mg.autograd.Function`` whose ``forward`` draws random numbers, inside a checkpoint.

Its node is the one place a replay runs user code: the replay calls ``forward`` again to
rebuild what it saved.  Run from the generator's state at replay time, it drew other numbers
(a gradient for a noise the forward pass never used) and moved the generator, so the step
after it differed too.  PyTorch's checkpoint restores the RNG state around its recomputation
(``preserve_rng_state=True``); here the replay runs ``forward`` from the state the first run
started from and puts the generator back: gradients and the generator's position are bit for
bit those of the same step without checkpointing.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_custom_functions import DropoutInside, NoisyScale  # tests/checkpoint_custom_functions.py

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck


def program(function):
    def fn(x, w):
        h = (x @ w).tanh()
        return function.apply(h).sin() + mg.randn_like(h) * h
    return fn


def step(fn, wrap, device="cpu", dtype=mg.float64):
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(4, 4, dtype=dtype, device=device, requires_grad=True)
    mg.manual_seed(1)
    y = wrap(fn, x, w)
    (y * y).sum().backward()
    after = mg.get_rng_state()
    return [a.cpu().numpy() for a in (y.detach(), x.grad, w.grad)], after


def plain(fn, *args):
    return fn(*args)


def checkpointed(fn, *args):
    return ck.checkpoint(fn, *args, use_reentrant=False)


def nested(fn, *args):
    return ck.checkpoint(lambda *a: ck.checkpoint(fn, *a) * 1.0, *args)


@pytest.mark.parametrize("function", [NoisyScale, DropoutInside])
@pytest.mark.parametrize("wrap", [checkpointed, nested])
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64)])
def test_replayed_forward_draws_what_the_forward_pass_drew(function, wrap, device, dtype):
    expected, rng_expected = step(program(function), plain, device, dtype)
    got, rng_got = step(program(function), wrap, device, dtype)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    assert rng_got == rng_expected, "the replay moved the engine's generator"


def test_replay_inside_the_forward_pass_draws_what_it_drew():
    """A backward pass inside the checkpointed function replays the node while it records."""
    def fn(x):
        h = NoisyScale.apply(x.sin())
        (g,) = mg.autograd.grad(h.sum(), x, create_graph=True)
        return g * h

    results = []
    for wrap in (plain, checkpointed):
        mg.manual_seed(0)
        x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
        wrap(fn, x).sum().backward()
        results.append((x.grad.numpy(), mg.get_rng_state()))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    assert results[1][1] == results[0][1]
