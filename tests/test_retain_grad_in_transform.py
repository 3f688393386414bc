"""``retain_grad()`` in a function an ``mg.func`` transform runs is refused, as torch 2.13 refuses it.

``mg.func.grad(lambda x: (y := x * a, y.retain_grad(), y.sin().sum())[2])(c)`` left in ``y.grad`` the
transform's own gradient, carrying a history into the transform (``grad_fn=Clone``), which an outer
backward then never updated; torch 2.13 raises "You are attempting to call Tensor.retain_grad() inside
of a function being transformed by a functorch transform. ..." (grad, vjp, jacrev, hessian; jacfwd refuses
with "can't retain_grad on Tensor that has requires_grad=False"; linearize, traced by make_fx there, lets
it through and keeps nothing: refused here as under the other transforms).
``mg.autograd.functional`` and ``vmap`` are not such transforms: there it works, as in torch (vmap: per
example, the loop).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

MESSAGE = "You are attempting to call Tensor.retain_grad\\(\\) inside of a function being transformed"


def _retaining(a):
    def f(x):
        y = x * a
        y.retain_grad()
        return y.sin()
    return f


@pytest.mark.parametrize("transform", ["grad", "vjp", "jacrev", "jacfwd", "hessian", "linearize"])
def test_refused_inside_the_transforms(transform):
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    c = mg.tensor([0.5, 1.5])
    f = _retaining(a)
    run = {"grad": lambda: mg.func.grad(lambda x: f(x).sum())(c), "vjp": lambda: mg.func.vjp(f, c),
           "jacrev": lambda: mg.func.jacrev(f)(c), "jacfwd": lambda: mg.func.jacfwd(f)(c),
           "hessian": lambda: mg.func.hessian(lambda x: f(x).sum())(c),
           "linearize": lambda: mg.func.linearize(f, c)}[transform]
    with pytest.raises(RuntimeError, match=MESSAGE):
        run()


def test_allowed_in_autograd_functional_and_vmap_and_outside():
    x = mg.ones(2, requires_grad=True)

    def f(a):
        y = a * 2
        y.retain_grad()
        return y.sum()

    np.testing.assert_array_equal(mg.autograd.functional.jacobian(f, x).numpy(), [2, 2])
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = mg.func.vmap(lambda r: (lambda y: (y.retain_grad(), y.sum())[1])(r * a))(mg.ones(3, 2))
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3, 3])
    y = x * 3
    y.retain_grad()
    y.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [1, 1])
    a.grad = None  # after the transform, retain_grad works again
    g = mg.func.grad(lambda t: (t * a).sum())(mg.ones(2))
    g.retain_grad()
    (g * g).sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), [2, 4])
