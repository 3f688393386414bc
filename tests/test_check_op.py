"""``minigrad_ckpt.testing.check_op``: the op battery on a user's op, and
what ``GradcheckError`` reports."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op, registry
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import GradcheckError, OpCheckError, check_op, gradcheck, gradgradcheck
from minigrad_ckpt.testing.check_op import CHECKS


@pytest.fixture
def scratch_ops():
    before = dict(registry)
    yield
    registry.clear()
    registry.update(before)


X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
POS = np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 3.0]])


def _op(name, forward, backward, reference=None, **flags):
    """A user op class from plain functions (each test defines its own bug)."""
    body = {"forward": lambda self, xp, *a: forward(xp, *a),
            "backward": lambda self, xp, g, out, *a: backward(xp, g, out, *a), **flags}
    if reference is not None:
        body["reference"] = lambda self, np_, *a: reference(np_, *a)
    return type(name, (Op,), body)


def test_a_correct_user_op_passes_every_check(scratch_ops) -> None:
    class UserSoftplus(Op):
        def forward(self, xp, x):
            return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))

        def backward(self, xp, g, out, x):
            return g * xp.sigmoid(x)

        def reference(self, np, x):
            return np.logaddexp(0, x)

    assert check_op(UserSoftplus(), X) == list(CHECKS)
    assert check_op(UserSoftplus, X) == list(CHECKS)  # the class works too
    # built-in ops and plain functions
    assert check_op(registry["Mul"](), X, np.array([2.0, -1.0, 0.5])) == list(CHECKS)
    ran = check_op(lambda a, b: mg.tanh(a) * b, X, 2.0, reference=lambda np, a, b: np.tanh(a) * b)
    assert ran == list(CHECKS)
    assert "forward" not in check_op(lambda a: mg.sin(a), X)  # no reference: that check is skipped


def test_a_hypothesis_strategy_of_inputs(scratch_ops) -> None:
    from hypothesis import strategies as st

    from minigrad_ckpt.testing import strategies as mst

    pairs = mst.broadcastable_shapes(2, max_dims=2, max_side=3).flatmap(
        lambda s: st.tuples(*(mst.arrays("float64", shape, st.floats(-3, 3)) for shape in s)))
    assert check_op(registry["Mul"](), pairs, max_examples=5) == list(CHECKS)

    class HalfWrong(Op):
        def forward(self, xp, x):
            return x * x

        def backward(self, xp, g, out, x):
            return g * 2 * xp.abs(x)  # right for x >= 0 only

        def reference(self, np, x):
            return x * x

    # Away from the kink at 0: within eps of it central differences of the backward jump, and
    # Hypothesis (which shrinks towards 0) would report that second-derivative failure instead.
    away_from_zero = st.floats(0.1, 3) | st.floats(-3, -0.1)
    with pytest.raises(GradcheckError, match="gradcheck \\(first derivatives\\) failed"):
        check_op(HalfWrong(), mst.arrays("float64", (3,), away_from_zero), max_examples=20)


def test_wrong_first_derivative_reports_the_worst_element(scratch_ops) -> None:
    WrongCube = _op("WrongCube", lambda xp, x: x * x * x,
                    lambda xp, g, out, x: g * 3 * x * x + g * (x > 1.0) * x,  # extra x where x > 1
                    lambda np, x: x ** 3)
    with pytest.raises(GradcheckError) as info:
        check_op(WrongCube(), X)
    e = info.value
    assert e.order == 1 and e.mode == "rev" and (e.output, e.input) == (0, 0)
    # x = 2.0 at (0, 2) is off by 2.0, x = 1.5 at (1, 0) by 1.5: the worst is reported, as a multi-index
    assert e.output_index == (0, 2) and e.input_index == (0, 2)
    assert type(e.analytic) is float and type(e.numeric) is float
    assert e.analytic == pytest.approx(14.0) and e.numeric == pytest.approx(12.0)
    msg = str(e)
    assert "gradcheck (first derivatives) failed" in msg and "np.float64" not in msg
    assert "worst at output element (0, 2), input element (0, 2): analytic 14.0" in msg


def test_wrong_second_derivative_says_second_order(scratch_ops) -> None:
    def backward(xp, g, out, x):
        x2 = x * x
        if hasattr(x2, "detach"):  # under create_graph: a constant, so d/dx of the gradient is lost
            x2 = x2.detach()
        return g * 3 * x2

    Cube = _op("DetachedCube", lambda xp, x: x * x * x, backward, lambda np, x: x ** 3)
    with pytest.raises(GradcheckError, match=r"gradgradcheck \(second derivatives\) failed: the Jacobian "
                                             r"of the gradient of input 0 with respect to input 0") as info:
        check_op(Cube(), X)
    assert info.value.order == 2


def test_a_gradient_masked_on_every_zero_upstream_gradient_is_caught(scratch_ops) -> None:
    # The pattern the built-in ops no longer have: right in value, but the mixed
    # derivative with respect to the upstream gradient vanishes where it is 0.
    OldLog = _op("OldLog", lambda xp, x: xp.log(x),
                 lambda xp, g, out, x: xp.where(g == 0, 0, g / x), lambda np, x: np.log(x))
    args = [mg.tensor(POS, requires_grad=True)]
    assert gradgradcheck(lambda t: apply(OldLog(), t), args, modes=("rev",))  # a random cotangent: no zeros
    with pytest.raises(GradcheckError, match=r"with respect to the cotangent of output 0") as info:
        check_op(OldLog(), POS)
    assert info.value.order == 2


def test_forward_against_the_reference(scratch_ops) -> None:
    Off = _op("OffByOne", lambda xp, x: x + 1, lambda xp, g, out, x: g, lambda np, x: x + 2,
              save_inputs=False)
    with pytest.raises(OpCheckError, match=r"\[forward\]: output differs from the reference; worst at"):
        check_op(Off(), X)


def test_noncontiguous_inputs(scratch_ops) -> None:
    # reads the input in memory order: right for contiguous arrays only
    InMemoryOrder = _op("InMemoryOrder", lambda xp, x: x.ravel(order="K").reshape(x.shape) * 1.0,
                        lambda xp, g, out, x: g, lambda np, x: x * 1.0, save_inputs=False)
    with pytest.raises(OpCheckError, match=r"\[noncontiguous\]"):
        check_op(InMemoryOrder(), X)


def test_float32_stays_float32(scratch_ops) -> None:
    Upcast = _op("Upcast", lambda xp, x: x * xp.asarray(2.0), lambda xp, g, out, x: g * 2.0,
                 lambda np, x: x * 2.0, save_inputs=False)
    with pytest.raises(OpCheckError, match=r"\[float32\]: float32 inputs gave a float64 output"):
        check_op(Upcast(), X)


def test_no_mutation(scratch_ops) -> None:
    def forward(xp, x):
        x *= 2  # in place: a read-only input makes this fail at once
        return x + 0

    InPlace = _op("InPlace", forward, lambda xp, g, out, x: g * 2, lambda np, x: x * 2, save_inputs=False)
    with pytest.raises(OpCheckError, match=r"\[no mutation\]: forward or backward wrote into an input"):
        check_op(InPlace(), X, skip=("forward", "gradcheck", "gradgradcheck", "noncontiguous", "float32"))


def test_no_aliasing(scratch_ops) -> None:
    Same = _op("Same", lambda xp, x: x, lambda xp, g, out, x: g, lambda np, x: x, save_inputs=False)
    with pytest.raises(OpCheckError, match=r"\[no aliasing\]: the output shares memory with input 0 .*is_view"):
        check_op(Same(), X)
    Leaky = _op("LeakyGrad", lambda xp, x: x + 0, lambda xp, g, out, x: g, lambda np, x: x, save_inputs=False)
    # the engine copies a gradient that is the upstream gradient itself, so this passes
    assert "no aliasing" in check_op(Leaky(), X)


def test_a_function_returning_a_view_made_by_a_view_op_is_not_aliasing(scratch_ops) -> None:
    # t.T, t[1:]: views PyTorch's functions return too; check_op failed every such function with
    # "an op whose output is a view must declare is_view = True", which its Transpose/GetItem do
    for view in (lambda t: t.T, lambda t: t[1:], lambda t: mg.transpose(t, 0, 1)[::-1]):
        assert "no aliasing" in check_op(view, X)
    # a function's output sharing memory through an op that does not declare a view is still reported
    Same = _op("Same", lambda xp, x: x, lambda xp, g, out, x: g, lambda np, x: x, save_inputs=False)
    with pytest.raises(OpCheckError, match=r"input 0 \(Same, the op that made it, does not declare is_view"):
        check_op(lambda t: apply(Same(), t), X)
    with pytest.raises(OpCheckError, match=r"input 0 \(the function returns an input tensor itself\)"):
        check_op(lambda t: t, X)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown check"):
        check_op(registry["Exp"](), X, skip=("speed",))
    with pytest.raises(TypeError, match="give the inputs"):
        check_op(registry["Exp"]())
    with pytest.raises(TypeError, match="not a floating or complex array"):
        check_op(registry["Add"](), X, np.arange(3), grad_inputs=(1,))


def test_gradcheck_frames_are_hidden_from_pytest_tracebacks(scratch_ops) -> None:
    Wrong = _op("WrongDouble", lambda xp, x: x * 2, lambda xp, g, out, x: g * 3, lambda np, x: x * 2,
                save_inputs=False)
    x = mg.tensor(X, requires_grad=True)
    for run in (lambda: gradcheck(lambda t: apply(Wrong(), t), [x], modes=("rev",)),
                lambda: gradgradcheck(lambda t: apply(Wrong(), t) * t, [x], modes=("rev",)),
                lambda: check_op(Wrong(), X)):
        with pytest.raises(AssertionError) as info:
            run()
        tb = info.value.__traceback__
        own = []
        while tb is not None:
            f = tb.tb_frame
            if "minigrad_ckpt/testing/" in f.f_code.co_filename.replace("\\", "/"):
                own.append((f.f_code.co_name, f.f_locals.get("__tracebackhide__", False)))
            tb = tb.tb_next
        assert own and all(hidden for _, hidden in own), own


def test_a_forward_mode_failure_names_the_mode(scratch_ops) -> None:
    class WrongJvp(Op):
        save_inputs = False

        def forward(self, xp, x):
            return x * 2

        def backward(self, xp, g, out, x):
            return g * 2

        def jvp(self, xp, tangents, out, x):
            return tangents[0] * 3

        def reference(self, np, x):
            return x * 2

    with pytest.raises(GradcheckError, match=r"forward-mode \(jvp\) Jacobian of output 0") as info:
        check_op(WrongJvp(), X)
    assert info.value.mode == "fwd" and info.value.order == 1
    assert check_op(WrongJvp(), X, modes=("rev",)) == list(CHECKS)  # reverse mode alone is right


# ---------------------------------------------------------------------------
# forward mode in check_op (the float32 and noncontiguous checks also run jvp)
# ---------------------------------------------------------------------------
class _RawBufferJvp(Op):
    """``2 x``, with a jvp that reads its tangent's underlying buffer: right only for
    contiguous tangents (test-only, kept out of the registry)."""

    abstract = True
    name = "RawBufferJvp"
    save_inputs = False

    def forward(self, xp, x):
        return x * 2

    def backward(self, xp, g, out, x):
        return g * 2

    def jvp(self, xp, tangents, out, x):
        t = tangents[0]
        base = getattr(t, "base", None)  # an array's buffer (a Tensor has none)
        flat = (t if base is None else base).reshape(-1)
        return flat[: t.size].reshape(t.shape) * 2

    def reference(self, np, x):
        return x * 2


class _LossyJvp(Op):
    """``x``, with a jvp that adds and removes 1e8: exact in float64, noise in float32."""

    abstract = True
    name = "LossyJvp"
    save_inputs = False

    def forward(self, xp, x):
        return x + 0

    def backward(self, xp, g, out, x):
        return g

    def jvp(self, xp, tangents, out, x):
        return (tangents[0] + 1e8) - 1e8

    def reference(self, np, x):
        return x.copy()


def test_check_op_runs_forward_mode_on_views_and_in_float32():
    x = np.random.default_rng(1).standard_normal((3, 4))
    with pytest.raises(OpCheckError, match=r"\[noncontiguous\].*forward-mode tangent"):
        check_op(_RawBufferJvp(), x, skip=["gradgradcheck"])
    assert "noncontiguous" in check_op(_RawBufferJvp(), x, skip=["gradgradcheck"], modes=("rev",))
    with pytest.raises(OpCheckError, match=r"\[float32\].*forward-mode tangent"):
        check_op(_LossyJvp(), x, skip=["gradgradcheck"])


@pytest.mark.parametrize("position", [3, -1, 0.0])
def test_grad_inputs_naming_no_input_is_an_index_error(position):
    # before: "input 3 is not a floating or complex array" -- as if the input existed
    with pytest.raises(IndexError, match=r"grad_inputs names input .*, but the op takes 1 input\(s\), at positions 0"):
        check_op(mg.sin, np.ones(3), grad_inputs=[position])
