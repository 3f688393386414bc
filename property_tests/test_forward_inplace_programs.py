"""Random programs of in-place writes under forward mode, against central differences.

A program starts from a fresh buffer (constant, or a value that moves with the
input) and applies a drawn sequence of in-place writes -- ``t[index] = v`` with
every kind of index, ``add_``, ``mul_``, ``clamp_``, ``copy_``, ``fill_``,
``zero_``, ``index_put_``, ``masked_fill_``, ``scatter_add_`` -- whose operands
are drawn from the input.  ``jvp`` must give what central differences of the
whole program give, ``jacfwd`` (one sibling level per column, every write
carrying every column at once) the full Jacobian, on the CPU in float64 and on
the float32-only strict stand-in device.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

N = 6  # the input's length; the buffer has 3 elements


def _index(x, values):
    return mg.tensor(np.array(values), device=x.device)


WRITES = {
    "element": lambda y, x: y.__setitem__(1, x[4] * x[0]),
    "slice": lambda y, x: y.__setitem__(slice(0, 2), mg.sin(x[4:])),
    "step slice": lambda y, x: y.__setitem__(slice(None, None, 2), x[2:4]),
    "index tensor": lambda y, x: y.__setitem__(_index(x, [2, 0]), x[3:5]),
    "repeated index": lambda y, x: y.__setitem__(_index(x, [1, 1]), x[:2]),
    "mask": lambda y, x: y.__setitem__(y > 0.4, x[5]),
    "empty mask": lambda y, x: y.__setitem__(y > 1e6, x[5]),
    "constant": lambda y, x: y.__setitem__(2, 0.25),
    "add_": lambda y, x: y.add_(x[:3], alpha=0.5),
    "mul_": lambda y, x: y.mul_(x[3:]),
    "div_": lambda y, x: y.div_(x[3:] + 2.0),
    "clamp_": lambda y, x: y.clamp_(min=0.2, max=0.9),
    "copy_": lambda y, x: y.copy_(x[3:] * x[:3]),
    "fill_": lambda y, x: y.fill_(x[1]),
    "zero_": lambda y, x: y.zero_(),
    "index_put_ accumulate": lambda y, x: y.index_put_((_index(x, [0, 0]),), x[1:3], accumulate=True),
    "masked_fill_": lambda y, x: y.masked_fill_(_index(x, [True, False, True]), x[2]),
    "scatter_add_": lambda y, x: y.scatter_add_(0, _index(x, [2, 2, 0]), x[:3]),
    "tanh_": lambda y, x: y.tanh_(),
}


def program(writes, moving_start):
    def f(x):
        if moving_start:
            y = x[:3] * x[3:] + 0.1
        else:
            y = mg.tensor(np.array([0.3, 0.6, 0.45], dtype=x.dtype), device=x.device) * 1.0
        for w in writes:
            WRITES[w](y, x)
        return y * x[:3]
    return f


def central(fn, x, eps=1e-6):
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = eps
        cols.append((fn(x + e) - fn(x - e)) / (2 * eps))
    return np.stack(cols, axis=-1)


@given(st.lists(st.sampled_from(sorted(WRITES)), min_size=1, max_size=4), st.booleans(),
       st.lists(st.floats(0.15, 0.95), min_size=N, max_size=N),
       st.lists(st.floats(-2.0, 2.0), min_size=N, max_size=N))
def test_writes_under_forward_mode_match_central_differences(writes, moving_start, x, v):
    f = program(writes, moving_start)
    x0, v0 = np.array(x), np.array(v)

    def value(a):
        with mg.no_grad():
            return f(mg.tensor(a)).numpy()

    jac = central(value, x0)
    _, dy = mg.func.jvp(f, (mg.tensor(x0),), (mg.tensor(v0),))
    np.testing.assert_allclose(dy.numpy(), jac @ v0, rtol=1e-5, atol=1e-6, err_msg=str(writes))
    np.testing.assert_allclose(mg.func.jacfwd(f)(mg.tensor(x0)).numpy(), jac, rtol=1e-5, atol=1e-6,
                               err_msg=str(writes))
    # the same program on the float32-only strict device: the same tangent, in float32, there
    xs, vs = (mg.tensor(a.astype(np.float32), device="strict-f32") for a in (x0, v0))
    _, dys = mg.func.jvp(f, (xs,), (vs,))
    assert dys.dtype == np.float32 and dys.device == xs.device
    np.testing.assert_allclose(dys.numpy(), dy.numpy(), rtol=2e-3, atol=2e-3, err_msg=str(writes))
