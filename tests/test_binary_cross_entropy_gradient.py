"""``F.binary_cross_entropy``'s gradients are PyTorch's formulas: ``d/dp = (p - y) / max(p (1 - p),
1e-12)`` (not the clamped logs' derivative, which is 0 where the clamp holds) and ``d/dy = -logit(p)``.

Expected values are torch 2.13's (CPU), written in; each comment names the torch expression.
"""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional
INF = math.inf
P = [0.0, 0.0, 1.0, 1.0, 0.3, 0.5, 1e-13]
Y = [1.0, 0.0, 0.0, 1.0, 0.8, 0.5, 0.25]

# p.grad, y.grad of F.binary_cross_entropy(p, y, reduction='sum').backward() for p = tensor(P, dtype),
# y = tensor(Y, dtype), both requiring grad (torch's 1e-12 is a C float: 1/that is 1.000000004e12)
GRAD_P = {
    "float32": [-999999995904.0, 0.0, 999999995904.0, 0.0, -2.3809523582458496, 0.0, -249999998976.0],
    "float64": [-1000000003995.8029, 0.0, 1000000003995.8029, 0.0, -2.380952380952381, 0.0, -250000000998.8507],
}
GRAD_Y = {
    "float32": [INF, INF, -INF, -INF, 0.8472977876663208, -0.0, 29.93360710144043],
    "float64": [INF, INF, -INF, -INF, 0.8472978603872036, -0.0, 29.933606208922495],
}
# p.grad of F.binary_cross_entropy(p, y.detach()).backward() (reduction='mean')
GRAD_P_MEAN = {
    "float32": [-142857142272.0, 0.0, 142857142272.0, 0.0, -0.3401360511779785, 0.0, -35714285568.0],
    "float64": [-142857143427.97183, 0.0, 142857143427.97183, 0.0, -0.3401360544217687, 0.0, -35714285856.978676],
}


def _close(t, expected, dtype):
    np.testing.assert_allclose(np.asarray(t.numpy(), dtype=np.float64), expected,
                               rtol=2e-7 if dtype == "float32" else 1e-14, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reverse_mode_gradients_are_pytorchs(dtype):
    p = mg.tensor(P, dtype=dtype, requires_grad=True)
    y = mg.tensor(Y, dtype=dtype, requires_grad=True)
    F.binary_cross_entropy(p, y, reduction="sum").backward()
    _close(p.grad, GRAD_P[dtype], dtype)
    _close(y.grad, GRAD_Y[dtype], dtype)
    p.grad = None
    F.binary_cross_entropy(p, y.detach()).backward()
    _close(p.grad, GRAD_P_MEAN[dtype], dtype)
    p.grad = None
    # torch: weight=tensor([2.0] * 7) doubles p.grad
    F.binary_cross_entropy(p, y.detach(), weight=mg.tensor([2.0] * 7, dtype=dtype), reduction="sum").backward()
    _close(p.grad, [2 * g for g in GRAD_P[dtype]], dtype)
    gp, gy = mg.func.grad(lambda a, b: F.binary_cross_entropy(a, b, reduction="sum"), argnums=(0, 1))(
        p.detach(), y.detach())
    _close(gp, GRAD_P[dtype], dtype)
    _close(gy, GRAD_Y[dtype], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_mode_tangents_are_pytorchs(dtype):
    p, y = mg.tensor(P, dtype=dtype), mg.tensor(Y, dtype=dtype)
    # torch.func.jvp(lambda a: F.binary_cross_entropy(a, y, reduction='none'), (p,), (ones(7),))
    _, tangent = mg.func.jvp(lambda a: F.binary_cross_entropy(a, y, reduction="none"), (p,), (mg.ones(7, dtype=dtype),))
    _close(tangent, GRAD_P[dtype], dtype)
    # the tangent of y at p strictly inside (0, 1): -logit(p)
    inside = slice(4, 7)
    _, tangent = mg.func.jvp(lambda b: F.binary_cross_entropy(p[inside], b, reduction="none"), (y[inside],),
                             (mg.ones(3, dtype=dtype),))
    _close(tangent, GRAD_Y[dtype][inside], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_second_derivative(dtype):
    # torch.autograd.grad(g.sum(), p) for g = grad(F.binary_cross_entropy(p, y, reduction='sum'), p,
    # create_graph=True): (p^2 - 2 p y + y) / (p (1 - p))^2 (torch adds its 1e-12 to p and 1 - p)
    p = mg.tensor([0.3, 0.5, 0.9], dtype=dtype, requires_grad=True)
    y = mg.tensor([0.8, 0.5, 0.0], dtype=dtype)
    (g,) = mg.autograd.grad(F.binary_cross_entropy(p, y, reduction="sum"), p, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), p)
    np.testing.assert_allclose(gg.numpy(), [9.297052154106472, 3.9999999999680007, 99.99999999777783],
                               rtol=1e-6 if dtype == "float32" else 1e-10)


def test_the_values_stay_pytorchs():
    # F.binary_cross_entropy(tensor(P, float64), tensor(Y, float64), reduction='none')
    loss = F.binary_cross_entropy(mg.tensor(P, dtype="float64"), mg.tensor(Y, dtype="float64"), reduction="none")
    np.testing.assert_allclose(loss.numpy(), [100.0, 0.0, 100.0, 0.0, 1.0345132322484953, 0.6931471805599453,
                                              7.483401552230723], rtol=1e-15)
