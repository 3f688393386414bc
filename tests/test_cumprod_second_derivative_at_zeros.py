"""The second derivative of ``cumprod`` where factors are 0.  The first derivative masks the terms
that are 0 only because they hold a zero factor; their own derivatives are not 0, and the Hessian
lost them: ``x = [0, 2, 1, 2, 0]`` gave 0 where PyTorch's (and the true) second derivative is 0.5,
through ``create_graph``, ``mg.func.hessian`` and nested forward mode alike.  The reference is the
closed form: ``d2 out_j / dx_a dx_b`` is the product of the ``x_k``, ``k <= j``, ``k`` not ``a`` or
``b`` (``a != b``, both ``<= j``), and 0 on the diagonal."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

ROWS = [[0.0, 2.0, 1.0, 2.0, 0.0], [1.0, 2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 3.0, -1.0, 2.0],
        [2.0, -1.0, 0.0, -2.0, 0.0], [0.0, 0.0, 0.0, 1.0, 5.0], [1.5, -2.0, 3.0, 0.5, 2.0]]
W = np.array([1.5, -2.0, 0.5, 3.0, 1.0])


def hessian_of_weighted_cumprod(x: np.ndarray) -> np.ndarray:
    """Hessian of ``sum_j W_j cumprod(x)_j`` for a 1-D ``x``, from the closed form."""
    n = len(x)
    h = np.zeros((n, n))
    for a, b in itertools.permutations(range(n), 2):
        for j in range(max(a, b), n):
            h[a, b] += W[j] * np.prod([x[k] for k in range(j + 1) if k not in (a, b)])
    return h


def loss(x):
    return (mg.cumprod(x, dim=-1) * mg.tensor(W, dtype=x.dtype, device=x.device)).sum()


TRANSFORMS = {
    "create_graph": None,
    "hessian": lambda: mg.func.hessian(loss),
    "jacfwd(jacfwd)": lambda: mg.func.jacfwd(mg.func.jacfwd(loss)),
    "jacfwd(jacrev)": lambda: mg.func.jacfwd(mg.func.jacrev(loss)),
}


def second_derivative(how: str, x: mg.Tensor) -> np.ndarray:
    if how == "create_graph":
        x = x.detach().requires_grad_()
        (g,) = mg.autograd.grad(loss(x), x, create_graph=True)
        return np.stack([mg.autograd.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(len(g))])
    return TRANSFORMS[how]()(x).numpy()


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("how", list(TRANSFORMS))
@pytest.mark.parametrize("row", ROWS, ids=str)
def test_cumprod_hessian_with_zero_factors(row, how, dtype, device):
    got = second_derivative(how, mg.tensor(row, dtype=dtype, device=device))
    np.testing.assert_allclose(got, hessian_of_weighted_cumprod(np.array(row)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_hessian_along_any_dim_of_a_matrix(dim):
    x = np.array([[0.0, 2.0, -1.0], [3.0, 0.0, 2.0], [1.0, 0.5, 0.0]])
    w = np.arange(1.0, 10.0).reshape(3, 3)

    def f(t):
        return (mg.cumprod(t, dim=dim) * mg.tensor(w)).sum()

    got = mg.func.hessian(f)(mg.tensor(x)).numpy().reshape(9, 9)
    moved = np.moveaxis(x, dim, -1)  # each line along dim is its own cumprod
    want = np.zeros((9, 9))
    index = np.moveaxis(np.arange(9).reshape(3, 3), dim, -1)
    weights = np.moveaxis(w, dim, -1)
    for line, idx, wl in zip(moved, index, weights):
        for a, b in itertools.permutations(range(3), 2):
            want[idx[a], idx[b]] = sum(wl[j] * np.prod([line[k] for k in range(j + 1) if k not in (a, b)])
                                       for j in range(max(a, b), 3))
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_cumprod_second_derivative_inside_checkpoint():
    x = mg.tensor(ROWS[0], requires_grad=True)
    y = mg.checkpoint.checkpoint(lambda t: loss(t), x, use_reentrant=False)
    (g,) = mg.autograd.grad(y, x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), hessian_of_weighted_cumprod(np.array(ROWS[0])).sum(0), atol=1e-12)
