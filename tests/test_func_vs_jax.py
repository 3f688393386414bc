"""``mg.func`` against JAX's answers on a handful of functions (a fixture made offline).

``tests/data/jax_reference.npz`` comes from ``tests/data/make_jax_reference.py``
(run with JAX installed; nothing here imports it).  The functions are written
once, in ``tests/data/func_cases.py``, against a namespace argument, so JAX and
minigrad_ckpt differentiate the very same code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from func_cases import CASES  # noqa: E402

sys.path.remove(str(DATA))
REF = np.load(DATA / "jax_reference.npz")
TOL = dict(rtol=1e-11, atol=1e-12)


def case(name):
    fn, shapes, scalar = CASES[name]
    n = len(shapes)
    args = [mg.tensor(REF[f"{name}|arg{k}"]) for k in range(n)]
    tans = [mg.tensor(REF[f"{name}|tan{k}"]) for k in range(n)]

    def f(*a):
        return fn(mg, *a)

    return f, args, tans, scalar


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def close(actual, key):
    expected = REF[key]
    assert actual.shape == expected.shape, f"{key}: shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(actual.numpy(), expected, err_msg=key, **TOL)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_and_vjp(name):
    f, args, tans, _ = case(name)
    out, tout = func.jvp(f, tuple(args), tuple(tans))
    outs, touts = as_tuple(out), as_tuple(tout)
    for i, (o, t) in enumerate(zip(outs, touts)):
        close(o, f"{name}|jvp_out{i}")
        close(t, f"{name}|jvp_tan{i}")
    _, vjp_fn = func.vjp(f, *args)
    cots = [mg.tensor(REF[f"{name}|cot{i}"]) for i in range(len(outs))]
    grads = vjp_fn(tuple(cots) if len(outs) > 1 else cots[0])
    for k, g in enumerate(grads):
        close(g, f"{name}|vjp{k}")
    # linearize evaluates f once and then gives the same J @ v
    _, jvp_fn = func.linearize(f, *args)
    for i, t in enumerate(as_tuple(jvp_fn(*tans))):
        close(t, f"{name}|jvp_tan{i}")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("kind", ["jacfwd", "jacrev"])
def test_jacobians(name, kind):
    f, args, _, _ = case(name)
    n = len(args)
    j = getattr(func, kind)(f, argnums=tuple(range(n)))(*args)
    n_out = sum(1 for k in REF.files if k.startswith(f"{name}|jvp_out"))
    rows = j if n_out > 1 else (j,)
    for i, row in enumerate(rows):
        for k, jk in enumerate(row):
            close(jk, f"{name}|{kind}{i}_{k}")


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[2]))
def test_grad_hessian_hvp(name):
    f, args, tans, _ = case(name)
    n = len(args)
    for k, g in enumerate(func.grad(f, argnums=tuple(range(n)))(*args)):
        close(g, f"{name}|grad{k}")
    close(func.hessian(f)(*args), f"{name}|hessian")
    value, hv = func.hvp(f, tuple(args), tuple(tans))
    np.testing.assert_allclose(value.item(), REF[f"{name}|jvp_out0"], **TOL)
    for k, h in enumerate(hv):
        close(h, f"{name}|hvp{k}")
