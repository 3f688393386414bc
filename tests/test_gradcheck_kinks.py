"""gradcheck at kinks (non-differentiable points, where the one-sided differences disagree):
reported with a GradcheckKinkWarning naming the elements and left out by default, errors with
``kinks="fail"``, and never hiding a wrong gradient elsewhere."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op, registry
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import GradcheckError, GradcheckKinkWarning, gradcheck, gradgradcheck


def _x(values):
    return mg.tensor(np.array(values, dtype=np.float64), requires_grad=True)


def test_relu_at_zero_is_a_kink_left_out_with_a_warning_naming_it():
    relu = mg.nn.functional.relu
    with pytest.warns(GradcheckKinkWarning, match=r"input 0 at \(1, 0\)"):
        assert gradcheck(lambda t: relu(t) * 2.0, [_x([[1.0, -2.0], [0.0, 3.0]])])


def test_max_ties_and_abs_at_zero_are_kinks():
    with pytest.warns(GradcheckKinkWarning, match=r"input 0 at \(0,\), \(2,\)"):
        assert gradcheck(lambda t: mg.max(t) + 0 * t.sum(), [_x([2.0, 1.0, 2.0])])
    with pytest.warns(GradcheckKinkWarning, match=r"\(1,\)"):
        assert gradcheck(lambda t: mg.abs(t), [_x([-1.0, 0.0, 2.0])])


def test_kinks_fail_makes_them_errors():
    with pytest.raises(GradcheckError, match=r"kinks .* at input 0 at \(1,\)"):
        gradcheck(lambda t: mg.abs(t), [_x([-1.0, 0.0, 2.0])], kinks="fail")
    with pytest.raises(ValueError, match="kinks must be"):
        gradcheck(lambda t: mg.abs(t), [_x([1.0])], kinks="ignore")


def test_a_kink_never_hides_a_wrong_gradient_elsewhere():
    before = dict(registry)
    try:
        class WrongAwayFromZero(Op):
            """|x| whose gradient is wrong (doubled) at x > 1."""

            def forward(self, xp, x):
                return xp.abs(x)

            def backward(self, xp, g, out, x):
                return g * xp.sign(x) * xp.where(x > 1, 2.0, 1.0)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(GradcheckError) as info:
                gradcheck(lambda t: apply(WrongAwayFromZero(), t), [_x([0.0, -0.5, 2.0])], modes=("rev",))
        assert info.value.input_index == (2,) and "kinks" not in str(info.value)
    finally:
        registry.clear()
        registry.update(before)


def test_smooth_functions_have_no_kinks():
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradcheckKinkWarning)
        assert gradcheck(lambda t: mg.exp(3 * t) / (t * t + 0.01), [_x([-1.0, 0.0, 1e-3, 2.0])])
        assert gradgradcheck(lambda t: mg.tanh(t) * t, [_x([0.0, 0.5])])


def test_gradgradcheck_reports_kinks_of_the_gradient():
    relu = mg.nn.functional.relu
    with pytest.warns(GradcheckKinkWarning):
        assert gradgradcheck(lambda t: relu(t) * t, [_x([0.0, 0.5])])


class _TanhWithWrongBackward(mg.autograd.Function):
    """tanh whose backward says 1 - y instead of 1 - y**2: right at 0 only."""

    @staticmethod
    def forward(ctx, x):
        y = mg.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1 - y)


@pytest.mark.parametrize("dtype", [mg.float32, mg.complex64])
def test_float32_rounding_is_not_a_kink_that_hides_a_wrong_gradient(dtype):
    # in float32, f(x +- 1e-6) differ from f(x) in their last bits only: the one-sided differences
    # are noise, which was taken for kinks at 1 and 2, left out, and the wrong backward passed
    x = mg.tensor(np.array([0.0, 1.0, 2.0]), dtype=dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the float32 warning
        warnings.simplefilter("error", GradcheckKinkWarning)
        with pytest.raises(GradcheckError, match=r"(?s)input element \((1|2),.*input 0 is "
                                                 + dtype.name + ": finite differences with eps=1e-06"):
            gradcheck(_TanhWithWrongBackward.apply, [x], modes="rev")
        # a real kink is still one in float32 (relu at 0), and a right gradient passes with float32's tolerances
        relu = mg.nn.functional.relu
        with pytest.warns(GradcheckKinkWarning, match=r"input 0 at \(1,\)"):
            assert gradcheck(lambda t: relu(t), [mg.tensor([-1.0, 0.0, 2.0], requires_grad=True)], eps=1e-3,
                             atol=1e-3, rtol=1e-2)
        assert gradcheck(mg.tanh, [x], eps=1e-3, atol=1e-3, rtol=1e-2)


class SteepParabolaOffByOne(mg.autograd.Function):
    """``60 x**2``, whose backward adds the upstream gradient once too often: ``g (120 x + 1)``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 60 * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (120 * x + 1)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_smooth_point_of_large_curvature_is_no_kink_that_hides_a_wrong_gradient(device):
    # at x = 0 the one-sided differences of 60 x**2 are -/+ 60 eps apart (eps f''), past the kink
    # threshold: the element was left out as a kink and the wrong gradient (1 against 0) passed;
    # a kink's gap does not grow with the step, a smooth function's doubles
    import minigrad_ckpt.testing.strict  # noqa: F401

    x = mg.tensor([0.0], dtype=mg.float64, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradcheckKinkWarning)
        with pytest.raises(GradcheckError, match="worst at output element \\(0,\\), input element \\(0,\\)"):
            gradcheck(SteepParabolaOffByOne.apply, [x], modes=("rev",))
        assert gradcheck(lambda t: 60 * t * t, [x])
        assert gradcheck(lambda t: mg.exp(1e3 * t * t), [x])
    # kinks stay kinks: at the point, within eps of it, and under a steep smooth part
    with pytest.warns(GradcheckKinkWarning, match=r"input 0 at \(0,\), \(1,\), \(2,\);"):
        assert gradcheck(lambda t: mg.nn.functional.relu(t), [_x([0.0, 3e-7, -4e-7, 1.0])])
    with pytest.warns(GradcheckKinkWarning, match=r"input 0 at \(0,\)"):
        assert gradcheck(lambda t: mg.abs(t) + 1000 * t * t, [_x([0.0, 0.5])])
