"""The gradient of a product, running product or log-cum-sum-exp of one element: the identity's.

``mg.tensor(inf, requires_grad=True).prod().backward()`` gave NaN (``prod / x`` = inf/inf); a 0-d
product is the element itself, gradient 1 -- PyTorch's ``prod_backward`` for a 0-d input, its
``cumprod_backward`` for a dim of size 1, its ``logcumsumexp_backward`` for a 0-d input.  A 1-D
``[inf]``'s ``prod`` (and ``logcumsumexp``) keeps the factor formula, NaN, as PyTorch's does.

Expected values: torch 2.13, ``x = torch.tensor(v, requires_grad=True); f(x).sum().backward();
x.grad`` for each case below, and ``torch.func.jvp`` for the 0-d ``prod``'s tangent (1).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.functional import reduction as numpy_style

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
INF, NAN = float("inf"), float("nan")

# name, input, f, torch 2.13's gradient
CASES = [
    ("prod_0d_inf", INF, lambda x: x.prod(), 1.0),
    ("prod_0d_nan", NAN, lambda x: x.prod(), 1.0),
    ("prod_0d_dim", INF, lambda x: x.prod(0), 1.0),
    ("prod_0d_dim_keepdim", INF, lambda x: x.prod(0, keepdim=True), 1.0),
    ("prod_1d_inf", [INF], lambda x: x.prod(), [NAN]),
    ("prod_1d_inf_dim", [INF], lambda x: x.prod(0), [NAN]),
    ("prod_row_inf", [[INF, 1.0, 2.0]], lambda x: x.prod(0), [[NAN, 1.0, 1.0]]),
    ("cumprod_0d_inf", INF, lambda x: x.cumprod(0), 1.0),
    ("cumprod_0d_nan", NAN, lambda x: x.cumprod(0), 1.0),
    ("cumprod_1d_inf", [INF], lambda x: x.cumprod(0), [1.0]),
    ("cumprod_dim_of_one", [[INF, 1.0, 2.0]], lambda x: x.cumprod(0), [[1.0, 1.0, 1.0]]),
    ("cumprod_dim_one_of_one", [[INF]], lambda x: x.cumprod(1), [[1.0]]),
    ("cumprod_flattened_one", [[INF]], lambda x: numpy_style.cumprod(x), [[1.0]]),  # (axis=None)
    ("cumprod_two", [INF, 1.0], lambda x: x.cumprod(0), [NAN, INF]),
    ("logcumsumexp_0d_inf", INF, lambda x: x.logcumsumexp(0), 1.0),
    ("logcumsumexp_0d_neginf", -INF, lambda x: x.logcumsumexp(0), 1.0),
    ("logcumsumexp_0d", 2.0, lambda x: x.logcumsumexp(0), 1.0),
    ("logcumsumexp_1d_inf", [INF], lambda x: x.logcumsumexp(0), [NAN]),
]


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
@pytest.mark.parametrize("name, value, f, want", CASES, ids=[c[0] for c in CASES])
def test_the_gradient_is_pytorchs(device, dtype, name, value, f, want):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    x = mg.tensor(value, dtype=dtype, device=device, requires_grad=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        f(x).sum().backward()
    assert x.grad.dtype == dtype and x.grad.shape == x.shape
    np.testing.assert_array_equal(x.grad.numpy(), np.asarray(want, dtype=np.float64))


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_a_zero_d_product_is_the_identity_under_the_transforms(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401
    x = mg.tensor(INF, dtype=dtype, device=device)
    _, t = mg.func.jvp(lambda a: a.prod(), (x,), (mg.ones_like(x),))
    assert t.dtype == dtype and float(t.numpy()) == 1.0  # torch.func.jvp: 1
    assert float(mg.func.grad(lambda a: a.prod())(x).numpy()) == 1.0
    # the identity's second derivative is 0 (torch: the first one has no grad_fn)
    second = mg.func.grad(mg.func.grad(lambda a: a.prod()))(mg.tensor(3.0, dtype=dtype, device=device))
    assert float(second.numpy()) == 0.0
