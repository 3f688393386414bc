"""The gradient of a product beside a single zero factor when the other factors' product
overflows.  The derivative for a non-zero ``x_i`` is the product of the other factors, one of
which is 0, so it is 0 (PyTorch's answer) -- not ``(prod / x_i) * 0``, which is ``inf * 0 = NaN``
once the non-zero factors' product overflows or ``x_i`` is itself inf.  Exact values: PyTorch
2.13 gives these gradients (0, inf, NaN) exactly."""
import math

import numpy as np
import pytest

import minigrad_ckpt as mg

INF, NAN = math.inf, math.nan
BIG = {"float64": 1e200, "float32": 1e30}

# (factors, gradient of the product) -- ``big`` stands for a factor whose square overflows
CASES = [
    (["big", "big", 0.0], [0.0, 0.0, INF]),
    ([INF, 2.0, 0.0], [0.0, NAN, INF]),
    ([NAN, 2.0, 0.0], [0.0, NAN, NAN]),
    ([0.0, 2.0, 3.0], [6.0, 0.0, 0.0]),
    ([0.0, 0.0, 3.0], [0.0, 0.0, 0.0]),
]


def _factors(values, dtype):
    return [BIG[dtype] if v == "big" else v for v in values]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("values,grad", CASES)
def test_prod_backward_beside_one_zero(values, grad, dtype):
    x = mg.tensor(_factors(values, dtype), dtype=getattr(mg, dtype), requires_grad=True)
    with np.errstate(all="ignore"):
        x.prod().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array(grad, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_prod_over_a_dim_backward_beside_one_zero(dtype):
    big = BIG[dtype]
    x = mg.tensor([[big, big, 0.0], [1.0, 2.0, 3.0]], dtype=getattr(mg, dtype), requires_grad=True)
    with np.errstate(all="ignore"):
        x.prod(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array([[0.0, 0.0, INF], [6.0, 3.0, 2.0]], dtype=dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_prod_jvp_beside_one_zero(dtype):
    big = BIG[dtype]
    x = mg.tensor([big, big, 0.0], dtype=getattr(mg, dtype))
    t = mg.tensor([1.0, 1.0, 1.0], dtype=getattr(mg, dtype))  # 0 + 0 + inf, not NaN + NaN + inf
    with np.errstate(all="ignore"):
        _, tangent = mg.func.jvp(lambda v: v.prod(), (x,), (t,))
    assert tangent.item() == INF


def test_prod_second_derivative_beside_one_zero_keeps_the_zero_factor():
    """d^2 prod / dx_0 dx_2 for (x_0, x_1, x_2) = (2, 3, 0) is x_1 = 3: the first derivative
    beside the zero still carries that factor in create_graph mode."""
    x = mg.tensor([2.0, 3.0, 0.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(x.prod(), (x,), create_graph=True)
    (h,) = mg.autograd.grad(g[0], (x,))
    np.testing.assert_array_equal(h.numpy(), [0.0, 0.0, 3.0])
