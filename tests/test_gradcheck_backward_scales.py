"""gradcheck's check that backward scales with its upstream gradient, as PyTorch's
``_test_backward_mul_by_grad_output``: zero gradients for every output must give zero gradients.

A backward that forgets ``grad_output`` (``return ones_like(x)`` for a sum, ``g * 2 + c``) is
wrong, and for a scalar output no Jacobian built from the upstream gradient 1 shows it: the
engine's gradcheck passed it (``mg.autograd.gradcheck`` returned True) where torch 2.13 raises
``GradcheckError: backward not multiplied by grad_output``.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.ops.base import Op
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import GradcheckError, gradcheck, gradgradcheck

MESSAGE = "backward not multiplied by grad_output"


class SumForgettingGrad(mg.autograd.Function):
    """``x.sum()`` whose backward leaves out the upstream gradient: right only when it is 1."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sum()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return mg.ones_like(x)


class ScaleWithOffset(mg.autograd.Function):
    """``2 x`` whose backward adds a constant: ``g * 2 + 0.001``."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 + 0.001


class SumOp(Op):
    """An op whose backward forgets ``g`` (its jvp is right)."""

    def forward(self, xp, x):
        return x.sum()

    def backward(self, xp, g, out, x):
        return xp.ones_like(x)

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return None if t is None else t.sum()


def _x(device="cpu", n=4):
    return mg.tensor(np.linspace(-1.3, 2.0, n), dtype=mg.float64, device=device, requires_grad=True)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("fast_mode", [False, True])
def test_a_backward_that_ignores_its_upstream_gradient_fails_as_in_pytorch(device, fast_mode):
    x = _x(device)
    with pytest.raises(GradcheckError, match=MESSAGE):
        mg.autograd.gradcheck(SumForgettingGrad.apply, (x,), fast_mode=fast_mode)
    assert mg.autograd.gradcheck(SumForgettingGrad.apply, (x,), fast_mode=fast_mode, raise_exception=False) is False
    with pytest.raises(GradcheckError, match=MESSAGE):
        mg.autograd.gradcheck(ScaleWithOffset.apply, (_x(device, 1),), fast_mode=fast_mode)


def test_the_engines_own_check_fails_it_in_reverse_mode_alone_and_names_the_input():
    with pytest.raises(GradcheckError, match=MESSAGE) as info:
        gradcheck(lambda t: apply(SumOp(), t), (_x(),), modes=("rev",))
    assert info.value.input == 0 and "gradient of input 0 is not zero (1.0 at element (0,))" in str(info.value)


def test_inside_a_checkpoint_and_in_float32():
    x = _x()
    with pytest.raises(GradcheckError, match=MESSAGE):
        mg.autograd.gradcheck(lambda t: ck.checkpoint(SumForgettingGrad.apply, t * 1), (x,))
    x32 = mg.tensor([0.5, 1.5], dtype=mg.float32, requires_grad=True)
    with pytest.warns(UserWarning, match="float32"):
        ok = mg.autograd.gradcheck(SumForgettingGrad.apply, (x32,), atol=1e-2, rtol=1e-2, eps=1e-3,
                                   raise_exception=False)
    assert ok is False


class CubeWithForgetfulDoubleBackward(mg.autograd.Function):
    """``x ** 2`` with a right first derivative, computed by :class:`ForgetfulDerivative`."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return ForgetfulDerivative.apply(g, x)


class ForgetfulDerivative(mg.autograd.Function):
    """``2 g x``, whose own backward forgets its upstream gradient."""

    @staticmethod
    def forward(ctx, g, x):
        ctx.save_for_backward(g, x)
        return 2 * g * x

    @staticmethod
    def backward(ctx, gg):
        g, x = ctx.saved_tensors
        return 2 * x, 2 * g


def test_gradgradcheck_fails_a_double_backward_that_ignores_its_upstream_gradient():
    x = mg.tensor([0.7], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(CubeWithForgetfulDoubleBackward.apply, (x,))
    with pytest.raises(GradcheckError, match=MESSAGE):
        mg.autograd.gradgradcheck(CubeWithForgetfulDoubleBackward.apply, (x,))
    with pytest.raises(GradcheckError, match=MESSAGE):
        gradgradcheck(CubeWithForgetfulDoubleBackward.apply, (x,), modes=("rev",))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_right_rules_still_pass(device):
    x = _x(device)
    assert mg.autograd.gradcheck(lambda t: t.sum(), (x,))
    assert mg.autograd.gradcheck(lambda t: (t * t).sum(), (x,), fast_mode=True)
    assert mg.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
    # the discarded branch's infinite derivative times a zero gradient stays zero (docs/ops.md)
    assert mg.autograd.gradcheck(lambda t: mg.where(t > 0, (t * t).sqrt(), 0.0), (x,))
    # a function differentiating inside (mg.func), two outputs, one not requiring grad
    assert gradcheck(lambda t: mg.func.grad(lambda u: (u ** 3).sum())(t), (x,))
    assert mg.autograd.gradcheck(lambda t: (t * 2, mg.ones(2, dtype=mg.float64, device=t.device), t.sum()), (x,))


def test_masked_is_taken_on_dense_tensors_as_in_pytorch():
    # torch 2.13: masked=True only changes how sparse tensors compare; on dense ones it checks as
    # without it (the engine refused it with NotImplementedError)
    x = _x()
    assert mg.autograd.gradcheck(lambda t: t * t, (x,), masked=True)
    assert mg.autograd.gradgradcheck(lambda t: t * t * t, (x,), masked=True)
    with pytest.raises(GradcheckError, match=MESSAGE):
        mg.autograd.gradcheck(SumForgettingGrad.apply, (x,), masked=True)


def test_asking_to_check_no_derivative_is_refused_not_passed():
    # torch 2.13 raises these AssertionErrors; the engine returned True, a check that could not fail
    x = _x()
    with pytest.raises(AssertionError, match="^Expected at least one of check_forward_ad or check_backward_ad to be "
                                             "True$"):
        mg.autograd.gradcheck(SumForgettingGrad.apply, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match="^Expected at least one of check_fwd_over_rev or check_rev_over_rev to "
                                             "be True$"):
        mg.autograd.gradgradcheck(CubeWithForgetfulDoubleBackward.apply, (x,), check_rev_over_rev=False)


def test_pytorchs_import_path_of_the_checks_and_their_error():
    # `from torch.autograd.gradcheck import gradcheck, gradgradcheck, GradcheckError` renamed
    # (a ModuleNotFoundError before: the module was autograd/checks.py)
    from minigrad_ckpt.autograd.gradcheck import GradcheckError as Error
    from minigrad_ckpt.autograd.gradcheck import gradcheck as check
    from minigrad_ckpt.autograd.gradcheck import gradgradcheck as check2

    assert check is mg.autograd.gradcheck and check2 is mg.autograd.gradgradcheck and Error is GradcheckError
    with pytest.raises(Error, match=MESSAGE):
        check(SumForgettingGrad.apply, (_x(),))
