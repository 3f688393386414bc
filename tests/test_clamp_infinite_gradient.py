"""``clamp``'s backward selects the gradient with a where, as PyTorch's ``clamp_backward``: an infinite
upstream gradient (``1 / (x.clamp(min=1) - 1)`` where ``x`` lies below the bound) gives the operand the
clamp did not pick an exact 0.  The engine multiplied by the mask, ``0 * inf = NaN`` (the gradient of
``Pareto(scale, alpha).mean`` in ``alpha < 1``, which clamps ``alpha`` to 1, was NaN; torch's is finite).
The numbers are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_an_infinite_gradient_beyond_the_bound_is_zero(device, dtype):
    # torch: x = tensor([0.5, 2.0], requires_grad=True); (1 / (x.clamp(min=1) - 1)).sum().backward() -> [0., -1.]
    x = mg.tensor([0.5, 2.0], dtype=dtype, device=device, requires_grad=True)
    (1 / (x.clamp(min=1) - 1)).sum().backward()
    np.testing.assert_array_equal(x.grad.to("cpu").numpy(), [0.0, -1.0])
    # torch: x = [0.5, 2., 3.], lo = [1., 1., 1.], hi = 2.5 (all requiring grad),
    # (1 / (x.clamp(min=lo, max=hi) - 1)).sum().backward() -> x.grad [0., -1., 0.], lo.grad [-inf, 0., 0.],
    # hi.grad -0.4444
    x = mg.tensor([0.5, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)
    lo = mg.tensor([1.0, 1.0, 1.0], dtype=dtype, device=device, requires_grad=True)
    hi = mg.tensor(2.5, dtype=dtype, device=device, requires_grad=True)
    (1 / (x.clamp(min=lo, max=hi) - 1)).sum().backward()
    np.testing.assert_array_equal(x.grad.to("cpu").numpy(), [0.0, -1.0, 0.0])
    np.testing.assert_array_equal(lo.grad.to("cpu").numpy(), [-np.inf, 0.0, 0.0])
    np.testing.assert_allclose(hi.grad.to("cpu").numpy(), -1 / 2.25, rtol=1e-6)


def test_the_tangent_of_an_infinite_bound_is_not_spread():
    # the tangent of the operand clamp picks; an infinite tangent of an unpicked bound stays out
    x, lo = mg.tensor([0.5, 2.0], dtype=mg.float64), mg.tensor([1.0, 1.0], dtype=mg.float64)
    _, tangent = mg.func.jvp(lambda x, lo: x.clamp(min=lo), (x, lo),
                             (mg.tensor([1.0, 1.0], dtype=mg.float64), mg.tensor([2.0, np.inf], dtype=mg.float64)))
    np.testing.assert_array_equal(tangent.numpy(), [2.0, 1.0])
