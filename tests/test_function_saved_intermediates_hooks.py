"""Saved-tensor hooks on the intermediates a custom ``mg.autograd.Function`` saves.

``ctx.save_for_backward(x, y, z)`` with ``z`` neither an input nor an output (``z = x.sin()`` made in
``forward``): the tape put the node's saved input and output through ``saved_tensors_hooks`` (and
``save_on_cpu``), but the context kept ``z`` as it was -- so a hook that changes what backward reads
(pack ``t * 2``) reached two of the three saved tensors, and the gradient was neither the hooked one
nor the plain one; the same inside ``mg.checkpoint`` (either ``use_reentrant``) and under
``mg.func.grad``.  Found by a differential probe against torch 2.13, which packs every tensor given
to ``save_for_backward`` (three pack calls here, three unpack calls at backward).

The expected gradients are by hand: with every saved value doubled, ``backward`` computes
``g * (z + x cos x)`` from ``2x`` and ``2 sin x``: ``2 sin x + 2x cos 2x``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.autograd.graph import save_on_cpu, saved_tensors_hooks

X = np.array([0.3, 0.7, 1.1])
HOOKED = 2 * np.sin(X) + 2 * X * np.cos(2 * X)
PLAIN = np.sin(X) + X * np.cos(X)


class SinTimesX(mg.autograd.Function):
    """``x * sin x``, saving its input, its output and the intermediate ``sin x``."""

    @staticmethod
    def forward(ctx, x):
        z = x.sin()
        y = x * z
        ctx.save_for_backward(x, y, z, None)
        return y

    @staticmethod
    def backward(ctx, g):
        x, _y, z, nothing = ctx.saved_tensors
        assert nothing is None
        return g * (z + x * x.cos())


class SetupSinTimesX(SinTimesX):
    """The same in ``setup_context`` style (the intermediate is kept on ``ctx`` by ``forward``'s caller)."""

    @staticmethod
    def forward(x):
        z = x.sin()
        return x * z, z

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output[0], output[1].sin().asin(), None)  # a tensor made here

    @staticmethod
    def backward(ctx, g, _gz):
        return SinTimesX.backward(ctx, g)


def counting_hooks(calls):
    def pack(t):
        calls.append("pack")
        return t * 2

    def unpack(t):
        calls.append("unpack")
        return t
    return saved_tensors_hooks(pack, unpack)


def grad_of(apply, run):
    calls = []
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)

    def f(x):
        with counting_hooks(calls):
            return apply(x * 1.0)
    run(f, x).sum().backward()
    return x.grad.numpy(), calls


RUNS = {
    "plain": lambda f, x: f(x),
    "checkpoint": lambda f, x: ck.checkpoint(f, x, use_reentrant=False),
    "checkpoint_reentrant": lambda f, x: ck.checkpoint(f, x, use_reentrant=True),
}


@pytest.mark.parametrize("run", RUNS)
def test_every_saved_tensor_goes_through_the_hooks(run):
    g, calls = grad_of(SinTimesX.apply, RUNS[run])
    np.testing.assert_allclose(g, HOOKED, rtol=1e-12)
    assert calls.count("pack") == 3 and calls.count("unpack") == 3  # (None is not packed)


def test_setup_context_style_intermediate_goes_through_the_hooks():
    g, calls = grad_of(lambda x: SetupSinTimesX.apply(x)[0], RUNS["plain"])
    np.testing.assert_allclose(g, HOOKED, rtol=1e-12)
    assert calls.count("pack") == 3


def test_under_func_grad():
    calls = []

    def f(x):
        with counting_hooks(calls):
            return SinTimesX.apply(x).sum()
    np.testing.assert_allclose(mg.func.grad(f)(mg.tensor(X, dtype=mg.float64)).numpy(), HOOKED, rtol=1e-12)
    assert calls.count("pack") == 3


def test_save_on_cpu_keeps_the_gradient():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    with save_on_cpu():
        y = SinTimesX.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), PLAIN, rtol=1e-12)
