"""Every ``mg.func`` transform called inside ``mg.inference_mode()`` gives its derivative.

``inference_mode`` records nothing and pushes no tangents -- for the code that
runs in it.  A transform called there runs its *own* function with inference
mode lifted (``torch.func``'s grad and jvp report ``is_inference_mode_enabled()``
False inside; vmap, which differentiates nothing, leaves it on), so evaluation
code may compute a gradient, a Jacobian-vector product or a Hessian without
leaving inference mode.  Before, every transform there returned zeros.  The
rows follow PyTorch's ``test_inference_mode_*`` (test/functorch/test_eager_transforms.py);
the expected values are written by hand for ``x ** 2`` and ``x ** 3``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

X = np.array([0.5, -1.25, 2.0])


def t64(values):
    return mg.tensor(np.asarray(values, dtype=np.float64))


def square_sum(x):
    return (x ** 2).sum()


def cube_sum(x):
    return (x ** 3).sum()


ONES = np.ones(3)
CASES = {
    "grad": (lambda x: F.grad(square_sum)(x), 2 * X),
    "grad_and_value": (lambda x: F.grad_and_value(square_sum)(x)[0], 2 * X),
    "vjp": (lambda x: F.vjp(lambda x: x ** 2, x)[1](t64(ONES))[0], 2 * X),
    "jvp": (lambda x: F.jvp(square_sum, (x,), (t64(ONES),))[1], np.sum(2 * X)),
    "jacrev": (lambda x: F.jacrev(lambda x: x ** 2)(x), np.diag(2 * X)),
    "jacfwd": (lambda x: F.jacfwd(lambda x: x ** 2)(x), np.diag(2 * X)),
    "hessian": (lambda x: F.hessian(cube_sum)(x), np.diag(6 * X)),
    "hvp": (lambda x: F.hvp(cube_sum, (x,), (t64(ONES),))[1][0], 6 * X),
    "linearize": (lambda x: F.linearize(lambda x: x ** 2, x)[1](t64(ONES)), 2 * X),
    "vmap of grad": (lambda x: F.vmap(F.grad(square_sum))(mg.stack([x, 2 * x])), np.stack([2 * X, 4 * X])),
    "grad of vmap": (lambda x: F.grad(lambda x: F.vmap(square_sum)(x.reshape(3, 1)).sum())(x), 2 * X),
    "grad of grad": (lambda x: F.grad(F.grad(lambda s: s ** 3))(x[0]), 6 * X[0]),
    "jacrev of grad": (lambda x: F.jacrev(F.grad(cube_sum))(x), np.diag(6 * X)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_transform_called_in_inference_mode_differentiates(name):
    run, want = CASES[name]
    x = t64(X)
    with mg.inference_mode():
        got = run(x)
        assert mg.is_inference_mode_enabled()
    assert not got.requires_grad
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)


def test_inference_mode_inside_the_function_still_makes_constants():
    def f(x):
        with mg.inference_mode():
            c = x ** 2
        return (x - c).sum()

    for outer in (mg.inference_mode, mg.enable_grad):
        with outer():
            g = F.grad(f)(t64(X))
        np.testing.assert_allclose(g.numpy(), ONES)


@pytest.mark.parametrize("transform, inside", [
    (lambda f, x: F.grad(f)(x), False),
    (lambda f, x: F.jvp(f, (x,), (t64(ONES),)), False),
    (lambda f, x: F.vmap(f)(x.reshape(3, 1)), True),
])
def test_what_the_function_sees_and_what_comes_back_after(transform, inside):
    seen = []

    def f(x):
        seen.append(mg.is_inference_mode_enabled())
        return (x ** 2).sum()

    with mg.inference_mode():
        transform(f, t64(X))
        assert mg.is_inference_mode_enabled() and not mg.is_grad_enabled()
    assert set(seen) == {inside}
    assert not mg.is_inference_mode_enabled() and mg.is_grad_enabled()
