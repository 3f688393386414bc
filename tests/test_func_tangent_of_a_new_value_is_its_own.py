"""A value with memory of its own gets a tangent with memory of its own.

Forward mode pushes tangents beside the values; an op whose rule passes the
tangent through (``clone``, ``x + 1``, ``x - 1``) handed
its output the *input's* tangent array.  Nothing in the engine writes into a
tangent, but a custom Function's ``jvp`` may -- for an input marked dirty,
PyTorch's documented pattern is ``return x_t.mul_(2)`` -- and that wrote
into the tangent the caller passed to ``mg.func.jvp`` (PyTorch's
``test_function_returns_input``, test/functorch/test_eager_transforms.py, ported to a probe,
found it; a tangent that requires grad was refused as a captured tensor).
Now an output that is not its input's memory never shares its input's tangent
memory, in the array path and on Tensors (forward over reverse) alike; a view
still shares its base's tangent, as PyTorch's does.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F


class DoubleInPlace(mg.autograd.Function):
    """``x.mul_(2)``, marked dirty; its jvp doubles the tangent in place, as PyTorch's docs ask."""

    @staticmethod
    def forward(x):
        return x.mul_(2)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.mark_dirty(inputs[0])

    @staticmethod
    def backward(ctx, g):
        return 2 * g

    @staticmethod
    def jvp(ctx, x_t):
        return x_t.mul_(2)


BEFORE = {
    "clone": lambda x: x.clone(),
    "add a number": lambda x: x + 1,
    "subtract a number": lambda x: x - 1,
    "add a constant tensor": lambda x: x + mg.zeros((), dtype=x.dtype),
    "contiguous then clone": lambda x: x.contiguous().clone(),
    "to the same dtype then clone": lambda x: x.to(x.dtype).clone(),
    "a view, cloned": lambda x: x.view(-1).clone(),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", list(BEFORE))
def test_a_jvp_writing_its_tangent_leaves_the_callers_tangent_alone(name, requires_grad):
    prepare = BEFORE[name]
    a = mg.tensor([2.0, -1.0], dtype=mg.float64)
    a_t = mg.tensor([3.0, 0.5], dtype=mg.float64, requires_grad=requires_grad)
    out, out_t = F.jvp(lambda x: DoubleInPlace.apply(prepare(x)), (a,), (a_t,))
    np.testing.assert_array_equal(a_t.detach().numpy(), [3.0, 0.5])
    np.testing.assert_array_equal(out_t.detach().numpy(), [6.0, 1.0])
    np.testing.assert_array_equal(a.numpy(), [2.0, -1.0])


def test_forward_over_reverse_too():
    """The tangent rule runs on Tensors when an outer level or a recording needs it."""
    a = mg.tensor([2.0, -1.0], dtype=mg.float64)
    t = mg.tensor([3.0, 0.5], dtype=mg.float64)

    def f(x):  # d/dx sum(DoubleInPlace(x + 1) * x) = 2x + 2(x + 1)
        return (DoubleInPlace.apply(x + 1) * x).sum()

    _, tangent = F.jvp(F.grad(f), (a,), (t,))  # the Hessian is 4 I
    np.testing.assert_allclose(tangent.numpy(), 4 * t.numpy())
    np.testing.assert_array_equal(t.numpy(), [3.0, 0.5])


def test_a_view_still_shares_its_bases_tangent():
    fwad = mg.autograd.forward_ad
    with fwad.dual_level():
        x = fwad.make_dual(mg.tensor([1.0, 2.0]), mg.tensor([5.0, 6.0]))
        tangent = fwad.unpack_dual(x.view(2)).tangent
        base = fwad.unpack_dual(x).tangent
        assert np.shares_memory(tangent.numpy(), base.numpy())
        fresh = fwad.unpack_dual(x + 1).tangent
        assert not np.shares_memory(fresh.numpy(), base.numpy())
