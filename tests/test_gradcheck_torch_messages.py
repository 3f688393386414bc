"""``mg.autograd.gradcheck`` and ``gradgradcheck`` fail in PyTorch's words, which ported tests match
(``assertRaisesRegex(RuntimeError, "Jacobian mismatch for output 0 with respect to input 0")``, from
test_autograd.py), each checked against torch 2.13 running the same functions:

- a Jacobian mismatch is headed "Jacobian mismatch for output i with respect to input k," (forward
  mode: "Jacobian computed with forward mode mismatch ...") before the engine's account of the worst
  element; before, only the engine's "the Jacobian of output i with respect to input k differs";
- an input that requires grad with a dim of stride 0 (an expanded view) is PyTorch's RuntimeError
  "The 0th input has a dimension with stride 0"; before, the in-place perturbation failed inside
  ``copy_`` with an unrelated message;
- no input requiring grad, and an input not in double precision, are said in PyTorch's words
  ("at least one input tensor to require gradient", "Input #0 requires gradient and is not a double
  precision floating point or complex");
- ``check_forward_ad=True`` ran the function inside ``mg.func.jvp`` at a level ``forward_ad`` did not
  see, so a function reading its inputs' tangents with ``forward_ad.unpack_dual`` (and making duals of
  its own, as test_autograd.py's ``test_gradcheck_forward_ad`` does) got None and a wrong forward
  formula passed silently; PyTorch's check runs it at a dual level.
"""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd import forward_ad as fwAD
from minigrad_ckpt.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck


def _wrong_backward(scale_x: float, scale_y: float):
    class Wrong(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * 2 + y, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * scale_x, g1 * scale_y

    return Wrong.apply


def _inputs():
    mg.manual_seed(0)
    return (mg.randn(3, dtype=mg.float64, requires_grad=True), mg.randn(3, dtype=mg.float64, requires_grad=True))


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("fn, output, input_", [
    (_wrong_backward(3.0, 2.0), 0, 1),  # d(out0)/dy is 1, backward says 2
    (_wrong_backward(4.0, 1.0), 1, 0),  # d(out1)/dx is 3, backward says 4
])
def test_a_jacobian_mismatch_names_the_output_and_input_in_pytorchs_words(fast_mode, fn, output, input_):
    with pytest.raises(GradcheckError, match=rf"^Jacobian mismatch for output {output} with respect to "
                                             rf"input {input_},\n"):
        gradcheck(fn, _inputs(), fast_mode=fast_mode)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        gradcheck(fn, _inputs(), fast_mode=fast_mode)
    assert gradcheck(fn, _inputs(), fast_mode=fast_mode, raise_exception=False) is False


def test_a_second_derivative_mismatch_is_a_jacobian_mismatch():
    class WrongSecond(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x.detach()  # right value, no second derivative

    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0"):
        gradgradcheck(WrongSecond.apply, (_inputs()[0],))


@pytest.mark.parametrize("fast_mode", [False, True])
def test_an_expanded_input_is_pytorchs_stride_0_refusal(fast_mode):
    x = mg.ones(1, dtype=mg.float64, requires_grad=True).expand(2, 2)
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0. gradcheck only supports "
                                           "inputs that are non-overlapping"):
        gradcheck(lambda t: t * 2, (x,), fast_mode=fast_mode)
    assert gradcheck(lambda t: t * 2, (x.contiguous(),), fast_mode=fast_mode)
    one = mg.ones(1, dtype=mg.float64, requires_grad=True).expand(1, 3)[:, :1]  # stride 0 on a dim of size 1
    assert gradcheck(lambda t: t * 2, (one,), fast_mode=fast_mode)


def test_no_input_requiring_grad_and_a_float32_input_in_pytorchs_words():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda t: t * 2, (mg.ones(2, dtype=mg.float64),))
    x = mg.ones(1, dtype=mg.float32, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert gradcheck(lambda s, t: s * t * 2, (mg.ones(1), x), atol=1e-1)
    assert any(str(w.message).startswith("Input #1 requires gradient and is not a double precision floating "
                                         "point or complex") for w in caught)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_forward_mode_is_checked_at_a_dual_level_the_function_can_read(fast_mode):
    def scaled_tangent(scale):
        def fn(x, y):  # test_autograd.py's test_gradcheck_forward_ad
            p, d = fwAD.unpack_dual(y)
            if d is not None:
                y = fwAD.make_dual(p, d * scale)
            return x + y, y
        return fn

    assert gradcheck(scaled_tangent(1.0), _inputs(), check_forward_ad=True, fast_mode=fast_mode)
    with pytest.raises(RuntimeError, match="^Jacobian computed with forward mode mismatch for output 0 with "
                                           "respect to input 1"):
        gradcheck(scaled_tangent(1.1), _inputs(), check_forward_ad=True, fast_mode=fast_mode)
    assert gradcheck(scaled_tangent(1.1), _inputs(), check_forward_ad=True, fast_mode=fast_mode,
                     raise_exception=False) is False
    x = _inputs()[0]
    with pytest.raises(RuntimeError, match="no level exists"):  # no dual level is left open
        fwAD.make_dual(x.detach(), x.detach())


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("modes", [{}, {"check_forward_ad": True, "check_backward_ad": False}])
@pytest.mark.parametrize("f", [lambda a: a.detach(), lambda a: (a.detach() * 2, a.detach())])
def test_no_output_requiring_grad_fails_in_pytorchs_words(f, modes, fast_mode):
    # torch 2.13: GradcheckError('Numerical gradient for function expected to be zero') (its whole message)
    # in both modes, slow and fast, one output or several; False with raise_exception=False
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Numerical gradient for function expected to be zero\n"):
        mg.autograd.gradcheck(f, (x,), fast_mode=fast_mode, **modes)
    assert mg.autograd.gradcheck(f, (x,), fast_mode=fast_mode, raise_exception=False, **modes) is False
    # a constant output: its numeric gradient is zero, so it passes (torch 2.13: True)
    assert mg.autograd.gradcheck(lambda a: mg.zeros(2, dtype=mg.float64), (x,), fast_mode=fast_mode, **modes)
