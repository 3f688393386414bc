"""``mg.func.jvp`` (and ``jacfwd``) called inside a custom ``autograd.Function``'s ``forward``.

The engine runs a Function's ``forward`` with the open forward-mode levels hidden
(the Function's own ``jvp`` gives its output's tangent), but it hid *every*
level, the ones opened inside ``forward`` too: a ``jvp`` there returned a zero
tangent.  PyTorch's ``test_jvp_inside_autograd_function``
(test/functorch/test_eager_transforms.py, ported to a probe) found it.  Now the levels open
when ``forward`` starts are hidden and those it opens itself are seen.  Expected
values by hand: d/dx cos = -sin, d/dx sin = cos.
"""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

X = np.array([0.3, -1.2, 2.0])


class SinByForwardMode(mg.autograd.Function):
    """sin(x) = -(d/dx cos x), computed by jvp in forward; its derivative by jvp in backward."""

    @staticmethod
    def forward(ctx, x):
        _, neg_sin = F.jvp(mg.cos, (x,), (mg.ones_like(x),))
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return -neg_sin

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        _, cos = F.jvp(mg.sin, (x,), (mg.ones_like(x),))
        return g * cos

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * mg.cos(x)


class DiagonalByJacfwd(mg.autograd.Function):
    """The diagonal of the Jacobian of x ** 3, by jacfwd in forward."""

    @staticmethod
    def forward(x):
        return mg.diagonal(F.jacfwd(lambda y: y ** 3)(x))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 6 * x


def t64(v, requires_grad=False):
    return mg.tensor(np.asarray(v, dtype=np.float64), requires_grad=requires_grad)


def test_jvp_inside_forward_and_backward():
    x = t64(X, requires_grad=True)
    y = SinByForwardMode.apply(x)
    np.testing.assert_allclose(y.detach().numpy(), np.sin(X), rtol=1e-15)
    (g,) = mg.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), np.cos(X), rtol=1e-15)


def test_jacfwd_inside_forward():
    np.testing.assert_allclose(DiagonalByJacfwd.apply(t64(X)).numpy(), 3 * X ** 2, rtol=1e-15)


def test_under_an_outer_jvp_the_outer_tangent_comes_from_the_functions_jvp():
    t = t64([1.0, 2.0, -1.0])
    y, y_t = F.jvp(SinByForwardMode.apply, (t64(X),), (t,))
    np.testing.assert_allclose(y.numpy(), np.sin(X), rtol=1e-15)
    np.testing.assert_allclose(y_t.numpy(), t.numpy() * np.cos(X), rtol=1e-15)


def test_under_outer_transforms():
    h = F.jacfwd(lambda x: SinByForwardMode.apply(x).sum())(t64(X))  # forward over a Function's jvp
    np.testing.assert_allclose(h.numpy(), np.cos(X), rtol=1e-15)
    g = F.grad(lambda x: DiagonalByJacfwd.apply(x).sum())(t64(X))
    np.testing.assert_allclose(g.numpy(), 6 * X, rtol=1e-15)
    v = F.vmap(SinByForwardMode.apply)(t64(np.stack([X, 2 * X])))
    np.testing.assert_allclose(v.numpy(), np.sin(np.stack([X, 2 * X])), rtol=1e-15)
