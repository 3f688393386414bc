"""The gradients given to ``backward`` and ``grad`` are counted as PyTorch counts them: fewer than
the outputs is its RuntimeError "got 2 tensors and 1 gradients" -- ``mg.autograd.backward([a, b],
[ga])`` raised an IndexError, ``mg.grad`` a ValueError -- and extra ones are not read (torch 2.13
returns the gradient; ``mg.grad`` raised).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def _x():
    return mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)


def _ones():
    return mg.ones(2, dtype=mg.float64)


CALLS = {
    "autograd.backward": lambda x, outs, gs: mg.autograd.backward(outs, gs),
    "autograd.backward inputs=": lambda x, outs, gs: mg.autograd.backward(outs, gs, inputs=[x]),
    "autograd.grad": lambda x, outs, gs: mg.autograd.grad(outs, x, gs),
    "is_grads_batched": lambda x, outs, gs: mg.autograd.grad(outs, x, [g.expand(3, 2) for g in gs],
                                                             is_grads_batched=True),
}


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_fewer_gradients_than_outputs_is_pytorchs_error(call):
    x = _x()
    with pytest.raises(RuntimeError, match="^got 2 tensors and 1 gradients$"):
        call(x, [x * 2, x * 3], [_ones()])


def test_extra_gradients_are_not_read():
    x = _x()
    mg.autograd.backward([x.sum()], [None, None])
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    (g,) = mg.autograd.grad([(x * x).sum()], x, [None, mg.ones((), dtype=mg.float64)])
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])

