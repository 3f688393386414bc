"""The functions of the ``mg.func`` vs JAX fixture, written once for both engines.

Each function takes the array namespace first (``jax.numpy`` when
``make_jax_reference.py`` produces the fixture, ``minigrad_ckpt`` when
``tests/test_func_vs_jax.py`` replays it) and uses only names and operators
both spell the same way.
"""

from __future__ import annotations


def rosenbrock(F, x):
    return ((1.0 - x[:-1]) ** 2 + 100.0 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def mlp(F, x, w1, b1, w2, b2):
    return F.tanh(F.matmul(w2, F.tanh(F.matmul(w1, x) + b1)) + b2)


def two_outputs(F, x, y):
    return F.sin(x) * y, (x * y).sum()


def cubic_exp(F, x):
    return (x ** 3 * F.exp(-x)).sum()


def normalized(F, x):
    return x / F.sqrt((x * x).sum() + 1.0)


def log_sum_exp(F, x, w):
    return F.log(F.exp(F.matmul(w, x)).sum())


def gaussian_nll(F, mu, log_sigma, data):
    z = (data - mu) / F.exp(log_sigma)
    return (0.5 * z * z + log_sigma).mean()


#: name -> (function, argument shapes, whether it returns one scalar)
CASES = {
    "rosenbrock": (rosenbrock, [(5,)], True),
    "mlp": (mlp, [(3,), (4, 3), (4,), (2, 4), (2,)], False),
    "two_outputs": (two_outputs, [(3,), (3,)], False),
    "cubic_exp": (cubic_exp, [(4,)], True),
    "normalized": (normalized, [(4,)], False),
    "log_sum_exp": (log_sum_exp, [(3,), (5, 3)], True),
    "gaussian_nll": (gaussian_nll, [(), (), (6,)], True),
}
