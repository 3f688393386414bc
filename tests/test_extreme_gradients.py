"""Where the gradient of a maximum, a minimum and a median goes when values tie or are NaN:
PyTorch's rules, in reverse mode, in forward mode (the transpose of the same rule) and on
the strict stand-in device.

Expected values made with torch 2.13 (CPU, float64); each case says the torch expression
(``x = torch.tensor(values, dtype=torch.float64, requires_grad=True)``, then
``f(x).sum().backward()`` and ``x.grad``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 - registers the "strict" stand-in device

NAN = math.nan

# name -> (function, input, torch's value(s), torch's gradient)
CASES = {
    # x.median() over the whole tensor: tied middle values share the gradient
    "median_ties": (lambda x: x.median(), [1.0, 2.0, 2.0, 3.0], 2.0, [0.0, 0.5, 0.5, 0.0]),
    "median_three_ties": (lambda x: x.median(), [2.0, 2.0, 2.0, 3.0], 2.0, [1 / 3, 1 / 3, 1 / 3, 0.0]),
    "median_lower_middle": (lambda x: x.median(), [1.0, 2.0, 3.0, 4.0], 2.0, [0.0, 1.0, 0.0, 0.0]),
    "median_nans": (lambda x: x.median(), [1.0, NAN, 3.0, NAN], NAN, [0.0, 0.5, 0.0, 0.5]),
    "median_2d": (lambda x: x.median(), [[1.0, 2.0], [2.0, 3.0]], 2.0, [[0.0, 0.5], [0.5, 0.0]]),
    "nanmedian_ties": (lambda x: x.nanmedian(), [1.0, 2.0, NAN, 2.0, 3.0], 2.0, [0.0, 0.5, 0.0, 0.5, 0.0]),
    # x.median(0).values: the gradient goes to the returned index (1), not shared
    "median_dim": (lambda x: x.median(0).values, [1.0, 2.0, 2.0, 3.0], 2.0, [0.0, 1.0, 0.0, 0.0]),
    # x.max() / x.min() with NaNs: the NaNs share the gradient
    "max_nan": (lambda x: x.max(), [1.0, NAN, 3.0], NAN, [0.0, 1.0, 0.0]),
    "max_nans": (lambda x: x.max(), [1.0, NAN, 3.0, NAN], NAN, [0.0, 0.5, 0.0, 0.5]),
    "min_nans": (lambda x: x.min(), [1.0, NAN, 3.0, NAN], NAN, [0.0, 0.5, 0.0, 0.5]),
    "max_ties": (lambda x: x.max(), [1.0, 3.0, 3.0], 3.0, [0.0, 0.5, 0.5]),
    # x.amax() / x.amin(): torch 2.13 gives NaN gradients here (0/0 in its tie count); the rule
    # is x.max()'s above, which the issue asks amax to follow
    "amax_nans": (lambda x: x.amax(), [1.0, NAN, 3.0, NAN], NAN, [0.0, 0.5, 0.0, 0.5]),
    "amin_nan": (lambda x: mg.amin(x), [1.0, NAN, 3.0], NAN, [0.0, 1.0, 0.0]),
    "amax_rows": (lambda x: x.amax(1), [[1.0, NAN, 3.0, NAN], [1.0, 3.0, 3.0, 0.0]], [NAN, 3.0],
                  [[0.0, 0.5, 0.0, 0.5], [0.0, 0.5, 0.5, 0.0]]),
    # the NumPy spelling is the same reduction
    "numpy_max_nan": (lambda x: mg.max(x, axis=0), [1.0, NAN, 3.0], NAN, [0.0, 1.0, 0.0]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_ties_and_nans_share_the_gradient_as_pytorchs(name, dtype):
    f, values, value, grad = CASES[name]
    x = mg.tensor(values, dtype=dtype, requires_grad=True)
    out = f(x)
    np.testing.assert_allclose(out.detach().numpy(), value, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6)
    # forward mode: the tangent is the gradient's weighted sum of the input tangents
    direction = mg.tensor(np.arange(1.0, x.size + 1).reshape(x.shape), dtype=dtype)
    _, tangent = mg.func.jvp(lambda v: f(v).sum(), (x.detach(),), (direction,))
    np.testing.assert_allclose(tangent.item(), float(np.sum(np.array(grad) * direction.numpy())), rtol=1e-6)


def test_the_whole_medians_jvp_is_the_mean_of_the_tied_tangents():
    # torch.func.jvp(lambda v: v.median(), (x,), (torch.tensor([1., 10., 100., 1000.]),)): 55
    x = mg.tensor([1.0, 2.0, 2.0, 3.0], dtype="float64")
    _, t = mg.func.jvp(lambda v: v.median(), (x,), (mg.tensor([1.0, 10.0, 100.0, 1000.0], dtype="float64"),))
    assert t.item() == 55.0


@pytest.mark.parametrize("name", ["median_ties", "max_nans", "amax_rows", "nanmedian_ties"])
def test_second_derivatives_of_the_shared_extremes_are_zero(name):
    f, values, _, grad = CASES[name]
    x = mg.tensor(values, dtype="float64", requires_grad=True)
    (g,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)   # the backward run on Tensors
    np.testing.assert_allclose(g.detach().numpy(), grad)
    hessian = mg.func.hessian(lambda v: f(v).sum())(x.detach()).numpy()
    assert hessian.shape == x.shape * 2 and not hessian.any()


# torch.maximum(a, b) / torch.minimum(a, b) with a = [1, nan, nan, 2, 2], b = [nan, 3, nan, 2, 1]:
# where either is NaN both operands get the whole gradient (its masks `a < b`, `a > b` are false)
A = [1.0, NAN, NAN, 2.0, 2.0]
B = [NAN, 3.0, NAN, 2.0, 1.0]
BINARY = {
    "maximum": ([1.0, 1.0, 1.0, 0.5, 1.0], [1.0, 1.0, 1.0, 0.5, 0.0]),
    "minimum": ([1.0, 1.0, 1.0, 0.5, 0.0], [1.0, 1.0, 1.0, 0.5, 1.0]),
    # torch.fmax / torch.fmin: the number wins over the NaN; unchanged here, checked beside them
    "fmax": ([1.0, 0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 0.0, 0.0]),
    "fmin": ([1.0, 0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 1.0]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_elementwise_extremes_with_nans_send_the_gradient_as_pytorchs(name, dtype):
    grad_a, grad_b = BINARY[name]
    a = mg.tensor(A, dtype=dtype, requires_grad=True)
    b = mg.tensor(B, dtype=dtype, requires_grad=True)
    getattr(mg, name)(a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), grad_a)
    np.testing.assert_array_equal(b.grad.numpy(), grad_b)
    ta, tb = mg.ones(5, dtype=dtype), mg.full((5,), 10.0, dtype=dtype)
    _, tangent = mg.func.jvp(getattr(mg, name), (a.detach(), b.detach()), (ta, tb))
    np.testing.assert_array_equal(tangent.numpy(), np.array(grad_a) * 1.0 + np.array(grad_b) * 10.0)


def test_a_number_against_nan_keeps_the_gradient_on_the_tensor():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    mg.maximum(x, NAN).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    y = mg.tensor([1.0, 2.0], requires_grad=True)
    mg.maximum(y, 1.5).sum().backward()                  # no NaN: the winner only
    assert y.grad.tolist() == [0.0, 1.0]


def test_shared_gradients_on_the_strict_device_match_the_cpu():
    grads = []
    for device in ("cpu", "strict"):
        x = mg.tensor([1.0, NAN, 3.0, NAN], requires_grad=True, device=device)
        y = mg.tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True, device=device)
        (x.amax() + y.median()).backward()
        grads.append((x.grad.cpu().numpy(), y.grad.cpu().numpy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    np.testing.assert_array_equal(grads[1][1], [0.0, 0.5, 0.5, 0.0])
