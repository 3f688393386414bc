"""A recorded tensor written in place under ``mg.no_grad()`` inside ``mg.func.jvp(mg.func.grad(f))``:
the backward rebuilds the saved values with the tangents of the node that made them, and the write
left that node's tangents as they were before it (the tensor itself, and its views, had the new
ones).  ``y = a * 1; with mg.no_grad(): y.mul_(1.5); (y * y).sum()`` had tangent ``2 v``, not
``3 v``.

Expected values: torch 2.13, ``torch.func.jvp(torch.func.grad(g), (x,), (v,))`` with
``x = [1, 2, 3]``, ``v = [1, 0, 1]`` for each write below (for ``copy_(a.exp())``:
``2 exp(x)`` and ``2 exp(x) v``); checkpointing the function changes no number.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
E = np.exp([1.0, 2.0, 3.0])


def _mul(y, a):
    y.mul_(1.5)


def _setitem(y, a):
    y[0] = 5.0


def _add(y, a):
    y.add_(a * 2)


def _copy(y, a):
    y.copy_(a.exp())


CASES = [  # the write, torch 2.13's (grad, its tangent)
    (_mul, [3.0, 6.0, 9.0], [3.0, 0.0, 3.0]),
    (_setitem, [10.0, 4.0, 6.0], [0.0, 0.0, 2.0]),
    (_add, [6.0, 12.0, 18.0], [6.0, 0.0, 6.0]),
    (_copy, 2 * E, 2 * E * [1.0, 0.0, 1.0]),
]


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpoint"])
@pytest.mark.parametrize("write, want, want_tangent", CASES, ids=[c[0].__name__ for c in CASES])
def test_the_backward_sees_the_written_tangent(device, dtype, checkpointed, write, want, want_tangent):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    def g(a):
        y = a * 1
        with mg.no_grad():
            write(y, a)
        return (y * y).sum()

    f = (lambda a: mg.checkpoint.checkpoint(g, a)) if checkpointed else g
    x = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device)
    v = mg.tensor([1.0, 0.0, 1.0], dtype=dtype, device=device)
    grad, tangent = mg.func.jvp(mg.func.grad(f), (x,), (v,))
    assert tangent.dtype == dtype
    rtol = 1e-6 if dtype == mg.float32 else 1e-12
    np.testing.assert_allclose(grad.numpy(), want, rtol=rtol)
    np.testing.assert_allclose(tangent.numpy(), want_tangent, rtol=rtol)
