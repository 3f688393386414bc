"""A failed ``mg.autograd.gradcheck`` raises ``GradcheckError``, which is a ``RuntimeError`` as PyTorch's
(``torch.autograd.gradcheck.GradcheckError``'s base), so a program written for PyTorch that catches
``RuntimeError`` around its check catches it -- and an ``AssertionError`` too, as the engine's tests catch a
failed check.  It was an ``AssertionError`` only, which such a program let through.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt.autograd.gradcheck import GradcheckError


class WrongSquare(mg.autograd.Function):  # backward says 3x where the derivative of x**2 is 2x
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


class SquareWithWrongSecond(mg.autograd.Function):  # first derivative right, its own derivative wrong
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x.detach() + 0 * x ** 3


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("check, fn", [(mg.autograd.gradcheck, WrongSquare.apply),
                                       (mg.autograd.gradgradcheck, SquareWithWrongSecond.apply)])
def test_a_failed_check_is_a_runtime_error(check, fn, device):
    x = mg.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=mg.float64, device=device, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        check(fn, (x,))
    assert isinstance(info.value, GradcheckError) and isinstance(info.value, AssertionError)
    assert check(fn, (x,), raise_exception=False) is False
