"""A function that writes a differentiated value into another argument and returns that argument.

``jacrev(lambda x, y: y.copy_(x))(x, y)`` is the identity: the output *is* ``y``,
which now holds ``x``.  The transform hands ``y`` back to the caller without the
transform's history (as ``torch.func`` does) -- but it cut that history off
before its own backward pass had read it, so the Jacobian came out 0 (PyTorch's
``TestJac.test_inplace``, test/functorch/test_eager_transforms.py, ported to a probe, found it;
``jacfwd`` was right).  The recording now keeps its own handle on such an output.
Expected values are written by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

X = np.array([0.5, -2.0])
Y = np.array([3.0, 4.0])


def copy_in(x, y):
    y.copy_(x)
    return y


def add_in(x, y):
    y.add_(x)
    return y


def set_one(x, y):
    y[0] = x[1]
    return y


WRITES = {"copy_": (copy_in, np.eye(2)), "add_": (add_in, np.eye(2)),
          "setitem": (set_one, np.array([[0.0, 1.0], [0.0, 0.0]]))}
TRANSFORMS = {
    "jacrev": lambda f, x, y: F.jacrev(f)(x, y),
    "jacfwd": lambda f, x, y: F.jacfwd(f)(x, y),
    "jacrev, argnums a tuple": lambda f, x, y: F.jacrev(f, argnums=(0,))(x, y)[0],
    "jacrev, y as a keyword": lambda f, x, y: F.jacrev(lambda x, y: f(x, y))(x, y=y),
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("write", list(WRITES))
def test_the_jacobian_of_a_returned_written_argument(write, transform):
    f, want = WRITES[write]
    x = mg.tensor(X, dtype=mg.float64)
    y = mg.tensor(Y, dtype=mg.float64)
    got = TRANSFORMS[transform](f, x, y)
    np.testing.assert_array_equal(got.numpy(), want)


def test_the_argument_keeps_the_written_values_without_history():
    x = mg.tensor(X, dtype=mg.float64)
    y = mg.tensor(Y, dtype=mg.float64)
    jac, out = F.jacrev(lambda x, y: (copy_in(x, y), y), has_aux=True)(x, y)
    np.testing.assert_array_equal(jac.numpy(), np.eye(2))
    np.testing.assert_array_equal(y.numpy(), X)
    assert not y.requires_grad and y.grad_fn is None
    assert not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), X)
