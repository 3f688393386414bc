"""Custom autograd Functions and the gradient utilities against PyTorch 2.13.

Each expected value was made by running the same program with torch 2.13 (CPU, float64 unless
said); the torch expression is in the comment beside it.  The programs are ported as a PyTorch
user writes them: only the module name changes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" devices

DEVICES = ("cpu", "strict", "strict-f32")


# ---------------------------------------------------------------------------
# clip_grad_norm_: PyTorch's get_total_norm then clip_grads_with_norm_
# ---------------------------------------------------------------------------
def _with_grads(dtype="float64", device="cpu"):
    a = mg.tensor([3.0, 4.0], dtype=dtype, device=device, requires_grad=True)
    b = mg.tensor([[1.0, -2.0], [2.0, 0.0]], dtype=dtype, device=device, requires_grad=True)
    a.grad = mg.tensor([3.0, 4.0], dtype=dtype, device=device)
    b.grad = mg.tensor([[1.0, -2.0], [2.0, 0.0]], dtype=dtype, device=device)
    return [a, b]


# torch: a.grad = [3, 4], b.grad = [[1, -2], [2, 0]];
# n = torch.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type=nt)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm_type, total", [
    (0, 2.0),  # the count of nonzero norms: each tensor's count (2, 3), then the count of those (2)
    (-math.inf, 0.0),  # the smallest |g| of the smallest: b holds a 0
    (2, math.sqrt(34.0)),
    (math.inf, 4.0),
    (1, 12.0),
])
def test_clip_grad_norm_of_every_order(device, norm_type, total):
    dtype = "float32" if device == "strict-f32" else "float64"
    params = _with_grads(dtype, device)
    before = [p.grad.numpy().copy() for p in params]
    n = mg.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type)
    assert n.dtype == dtype and n.shape == ()
    np.testing.assert_allclose(n.item(), total, rtol=1e-6)
    coef = min(1.0 / (total + 1e-6), 1.0)
    for p, g in zip(params, before):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-6)


def test_clip_grad_norm_of_gradients_of_two_dtypes_is_in_the_promoted_dtype():
    # torch: a float32 [3, 4], b float64 [12]: clip_grad_norm_([a, b], 1.0) -> tensor(13., float64)
    a = mg.tensor([3.0, 4.0], dtype="float32", requires_grad=True)
    b = mg.tensor([1.0], dtype="float64", requires_grad=True)
    a.grad, b.grad = mg.tensor([3.0, 4.0], dtype="float32"), mg.tensor([12.0], dtype="float64")
    n = mg.nn.utils.clip_grad_norm_([a, b], 1.0)
    assert n.dtype == "float64" and n.item() == 13.0
    assert a.grad.dtype == "float32"
    np.testing.assert_allclose(a.grad.numpy(), [3 / 13, 4 / 13], rtol=1e-6)


def test_clip_grad_norm_non_finite_message_is_pytorchs():
    params = _with_grads()
    params[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="for gradients from `parameters` is non-finite, so it cannot be clipped"):
        mg.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


# ---------------------------------------------------------------------------
# mark_dirty on a view: the base's history goes through the function
# ---------------------------------------------------------------------------
class ExpInplace(mg.autograd.Function):
    """PyTorch's in-place custom function: changes its input, marks it dirty, returns it."""

    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (result,) = ctx.saved_tensors
        return g * result

    @staticmethod
    def jvp(ctx, t):  # PyTorch: an in-place function changes its input's tangent in place
        (result,) = ctx.saved_tensors
        return t.mul_(result)


def _exp_a_slice_in_place(a, weights):
    b = a * 1
    v = b[1:3]
    y = ExpInplace.apply(v)
    return (b * weights).sum() + (y * y).sum(), b, y, v


# torch: a = tensor([.1, .2, .3, .4], requires_grad=True); b = a * 1; v = b[1:3];
# y = ExpInplace.apply(v); ((b * tensor([1., 10., 100., 1000.])).sum() + (y * y).sum()).backward()
# (b's grad_fn is CopySlices: the gradient through b reaches ExpInplace's backward)
B_AFTER = [0.1, 1.2214027581601699, 1.3498588075760032, 0.4]
A_GRAD = [1.0, 15.197676976884239, 138.63011835838134, 1000.0]


@pytest.mark.parametrize("device", DEVICES)
def test_mark_dirty_of_a_view_records_the_change_in_the_base(device):
    dtype = "float32" if device == "strict-f32" else "float64"
    a = mg.tensor([0.1, 0.2, 0.3, 0.4], dtype=dtype, device=device, requires_grad=True)
    weights = mg.tensor([1.0, 10.0, 100.0, 1000.0], dtype=dtype, device=device)
    loss, b, y, v = _exp_a_slice_in_place(a, weights)
    assert y is v
    loss.backward()
    rtol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(b.numpy(), B_AFTER, rtol=rtol)
    np.testing.assert_allclose(a.grad.numpy(), A_GRAD, rtol=rtol)  # was [1, 10, 100, 1000] + y's part only


def test_mark_dirty_of_a_view_under_the_reverse_transforms():
    weights = mg.tensor([1.0, 10.0, 100.0, 1000.0], dtype="float64")
    a = mg.tensor([0.1, 0.2, 0.3, 0.4], dtype="float64")
    grad = mg.func.grad(lambda t: _exp_a_slice_in_place(t, weights)[0])(a)
    np.testing.assert_allclose(grad.numpy(), A_GRAD, rtol=1e-13)
    second = mg.func.grad(lambda t: mg.func.grad(lambda s: _exp_a_slice_in_place(s, weights)[0])(t).sum())(a)
    # torch: g, = torch.autograd.grad(loss, a, create_graph=True); torch.autograd.grad(g.sum(), a)
    np.testing.assert_allclose(second.numpy(), [0.0, 18.18132637216678, 142.27435595916236, 0.0], rtol=1e-13)
    hessian = mg.func.hessian(lambda t: _exp_a_slice_in_place(t, weights)[0])(a)  # forward over reverse
    np.testing.assert_allclose(hessian.numpy(), np.diag(second.numpy()), rtol=1e-13)


@pytest.mark.parametrize("device", DEVICES)
def test_mark_dirty_double_backward_differentiates_through_the_output(device):
    # torch: a = tensor([.1, .2, .3, .4], requires_grad=True); y = ExpInplace.apply(a * 1);
    # g, = torch.autograd.grad((y * y).sum(), a, create_graph=True); torch.autograd.grad(g.sum(), a)
    # (the saved x is the output e^a, not the input: before, the second derivative was 2 e^(2a) + ...)
    dtype = "float32" if device == "strict-f32" else "float64"
    a = mg.tensor([0.1, 0.2, 0.3, 0.4], dtype=dtype, device=device, requires_grad=True)
    y = ExpInplace.apply(a * 1)
    (g,) = mg.autograd.grad((y * y).sum(), a, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), a)
    rtol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(g.numpy(), [2.44280551632034, 2.9836493952825407, 3.644237600781018,
                                           4.451081856984936], rtol=rtol)
    np.testing.assert_allclose(gg.numpy(), [4.88561103264068, 5.967298790565081, 7.288475201562036,
                                            8.902163713969871], rtol=rtol)


@pytest.mark.parametrize("sliced", [False, True])
def test_mark_dirty_in_forward_mode(sliced):
    # torch: with fwAD.dual_level(): x = fwAD.make_dual(tensor([.1, .2, .3, .4]), tensor([1., 2., 3., 4.]));
    # y = x * 1; ExpInplace.apply(y[1:3] if sliced else y); fwAD.unpack_dual(y).tangent
    # (before: the forward's exp_ zeroed the argument's tangent, and a view's change left the base's)
    expected = ([1.0, 2.4428055163203397, 4.049576422728009, 4.0] if sliced else
                [1.1051709180756477, 2.4428055163203397, 4.049576422728009, 5.967298790565081])
    fwAD = mg.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(mg.tensor([0.1, 0.2, 0.3, 0.4], dtype="float64"),
                           mg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64"))
        y = x * 1
        ExpInplace.apply(y[1:3] if sliced else y)
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), expected, rtol=1e-13)

    def program(t):
        y = t * 1
        ExpInplace.apply(y[1:3] if sliced else y)
        return y

    _, tangent = mg.func.jvp(program, (mg.tensor([0.1, 0.2, 0.3, 0.4], dtype="float64"),),
                             (mg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64"),))
    np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-13)


def test_mark_dirty_of_the_base_reaches_a_view_taken_before():
    # torch: a = tensor([[.1, .2], [.3, .4]], requires_grad=True); b = a * 1; u = b.t()[0];
    # ExpInplace.apply(b); (u * tensor([5., 7.])).sum().backward(); a.grad
    a = mg.tensor([[0.1, 0.2], [0.3, 0.4]], dtype="float64", requires_grad=True)
    b = a * 1
    u = b.t()[0]
    ExpInplace.apply(b)
    (u * mg.tensor([5.0, 7.0], dtype="float64")).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[5.525854590378239, 0.0], [9.449011653032022, 0.0]], rtol=1e-13)


class DoublesInPlaceReturnsAnother(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return g * 6


def test_mark_dirty_of_an_input_not_returned_is_pytorchs_error():
    # torch: RuntimeError 'Some elements marked as dirty during the forward method were not returned as output.'
    # (before: NotImplementedError about packing several outputs)
    with pytest.raises(RuntimeError, match="marked as dirty during the forward method were not returned as output"):
        DoublesInPlaceReturnsAnother.apply(mg.tensor([1.0, 2.0], requires_grad=True) * 1)


def test_mark_dirty_refusals_on_views():
    a = mg.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    # torch: 'a view of a leaf Variable that requires grad is being used in an in-place operation.'
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        ExpInplace.apply(a[1:3])
    # torch: a later change of the base makes the backward of the saved output refuse
    b = a * 1
    y = ExpInplace.apply(b[1:3])
    with mg.no_grad():
        b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


# ---------------------------------------------------------------------------
# autograd.grad(..., is_grads_batched=True)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_grad_with_batched_cotangents_is_the_jacobian_row_by_row(device):
    # torch: x = tensor([1., 2., 3.], requires_grad=True); y = x ** 2;
    # torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True, create_graph=True) -> diag(2, 4, 6);
    # torch.autograd.grad(g.sum(), x) -> [2, 2, 2]  (before: TypeError, no is_grads_batched)
    dtype = "float32" if device == "strict-f32" else "float64"
    x = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)
    y = x ** 2
    (g,) = mg.autograd.grad(y, x, mg.eye(3, dtype=dtype, device=device), is_grads_batched=True, create_graph=True)
    assert g.dtype == dtype and g.requires_grad
    assert g.tolist() == [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]
    assert mg.autograd.grad(g.sum(), x)[0].tolist() == [2.0, 2.0, 2.0]


def test_grad_with_batched_cotangents_options_and_refusals():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = mg.tensor([1.0], requires_grad=True)
    y = x ** 2
    # torch: grad([y, y.sum()], x, [eye(3), tensor([1., 2., 4.])], is_grads_batched=True) -> rows summed
    (g,) = mg.autograd.grad([y, y.sum()], x, [mg.eye(3), mg.tensor([1.0, 2.0, 4.0])], is_grads_batched=True,
                            retain_graph=True)
    assert g.tolist() == [[4.0, 4.0, 6.0], [4.0, 12.0, 12.0], [8.0, 16.0, 30.0]]
    # torch: allow_unused gives None; materialize_grads gives zeros_like(z) -- without the batch dim
    assert mg.autograd.grad(y, [x, z], mg.eye(3), is_grads_batched=True, allow_unused=True,
                            retain_graph=True)[1] is None
    assert mg.autograd.grad(y, [x, z], mg.eye(3), is_grads_batched=True, materialize_grads=True,
                            retain_graph=True)[1].tolist() == [0.0]
    with pytest.raises(RuntimeError, match="first dimension of each grad_output as the batch dimension"):
        mg.autograd.grad(y, x, mg.ones(3), is_grads_batched=True, retain_graph=True)
    with pytest.raises(ValueError, match="same nonzero size in the mapped dimension"):
        mg.autograd.grad([y, y.sum()], x, [mg.eye(3), mg.tensor([1.0, 2.0])], is_grads_batched=True)
    # torch: the graph is freed after the last element unless retain_graph=True
    mg.autograd.grad(y, x, mg.eye(3), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        mg.autograd.grad(y, x, mg.eye(3), is_grads_batched=True)


# ---------------------------------------------------------------------------
# ctx.needs_input_grad
# ---------------------------------------------------------------------------
class RecordsNeeds(mg.autograd.Function):
    seen: list = []

    @staticmethod
    def forward(ctx, x, k):
        RecordsNeeds.seen.append(ctx.needs_input_grad)
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g, None


def test_needs_input_grad_is_whether_each_argument_requires_grad_in_no_grad_too():
    # torch: with torch.no_grad(): RecordsNeeds.apply(x, 2.) with x requiring grad sees (True, False)
    # (before: (False, False)); RecordsNeeds.apply(3., 2.) sees (False, False) (before: ())
    RecordsNeeds.seen.clear()
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.no_grad():
        y = RecordsNeeds.apply(x, 2.0)
    assert not y.requires_grad
    RecordsNeeds.apply(x, 2.0)
    RecordsNeeds.apply(3.0, 2.0)
    assert RecordsNeeds.seen == [(True, False), (True, False), (False, False)]


# ---------------------------------------------------------------------------
# jvp staticmethod: a tangent of another shape than its output is refused
# ---------------------------------------------------------------------------
class DoubleWithShortTangent(mg.autograd.Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g * 2

    @staticmethod
    def jvp(ctx, tangent):
        return tangent[:1] * 2  # a wrong rule: one element for a two-element output


def test_a_jvp_tangent_of_the_wrong_shape_is_refused():
    # torch: with fwAD.dual_level(): fwAD.unpack_dual(F.apply(fwAD.make_dual(x, ones(2)))) -> RuntimeError
    # 'Trying to set a forward gradient that has a different size ...' (before: [2, 2], broadcast silently)
    message = "forward gradient that has a different size than that of the original Tensor"
    fwAD = mg.autograd.forward_ad
    with fwAD.dual_level(), pytest.raises(RuntimeError, match=message):
        DoubleWithShortTangent.apply(fwAD.make_dual(mg.tensor([1.0, 2.0]), mg.ones(2)))
    with pytest.raises(RuntimeError, match=message):
        mg.func.jvp(DoubleWithShortTangent.apply, (mg.tensor([1.0, 2.0]),), (mg.ones(2),))
    with pytest.raises(RuntimeError, match=message):
        mg.func.jacfwd(DoubleWithShortTangent.apply)(mg.tensor([1.0, 2.0]))


# ---------------------------------------------------------------------------
# backward(inputs=...) and autograd.grad's inputs
# ---------------------------------------------------------------------------
def test_backward_into_a_tensor_that_retains_its_grad_sums_it_once():
    # torch: x = tensor([1., 2., 3.], requires_grad=True); h = x * 2; h.retain_grad();
    # (h * h).sum().backward(inputs=[h, x]) -> x.grad [8, 16, 24], h.grad [4, 8, 12] (before: h.grad doubled);
    # a second backward(inputs=[h]) of a retained graph sums to [8, 16, 24]
    x = mg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    h = x * 2
    h.retain_grad()
    y = (h * h).sum()
    y.backward(inputs=[h, x], retain_graph=True)
    assert x.grad.tolist() == [8.0, 16.0, 24.0] and h.grad.tolist() == [4.0, 8.0, 12.0]
    y.backward(inputs=[h])
    assert x.grad.tolist() == [8.0, 16.0, 24.0] and h.grad.tolist() == [8.0, 16.0, 24.0]


def test_grad_with_no_inputs_is_pytorchs_error():
    # torch: torch.autograd.grad((x ** 2).sum(), []) -> RuntimeError (before: an empty tuple)
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty"):
        mg.autograd.grad((x ** 2).sum(), [])


# ---------------------------------------------------------------------------
# Differentiable outputs of several (real) dtypes
# ---------------------------------------------------------------------------
class SquareAndSingleCube(mg.autograd.Function):
    """x ** 2 in x's dtype and x ** 3 in float32 (or float16 from float32 on strict-f32)."""

    low = "float32"

    @staticmethod
    def forward(x):
        return x ** 2, (x ** 3).to(SquareAndSingleCube.low)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x, output[1])
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_square, grad_cube):
        x, cube = ctx.saved_tensors
        assert grad_cube.dtype == cube.dtype  # each gradient in its output's dtype, as in PyTorch
        return grad_square * 2 * x + grad_cube.to(x.dtype) * 3 * (cube.to(x.dtype) / x)

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return 2 * x * tangent, (3 * x * x * tangent).to(SquareAndSingleCube.low)


def _mixed_loss(x):
    square, cube = SquareAndSingleCube.apply(x)
    weights = mg.tensor([1.0, 10.0, 100.0], dtype=x.dtype, device=x.device)
    return (square * weights).sum() + (cube * weights.to(cube.dtype)).sum().to(x.dtype)


# torch: x = tensor([1., 2., 3.], requires_grad=True); a, b = F.apply(x) (b float32);
# ((a * w).sum() + (b * w.float()).sum()).backward() -> x.grad [5, 160, 3300] (w = [1, 10, 100]);
# the grad of that gradient's sum with create_graph=True -> [8, 140, 2000]
# (before: NotImplementedError 'differentiable outputs of several dtypes')
@pytest.mark.parametrize("device", DEVICES)
def test_outputs_of_two_dtypes(device, monkeypatch):
    high, low = ("float32", "float16") if device == "strict-f32" else ("float64", "float32")
    monkeypatch.setattr(SquareAndSingleCube, "low", low)
    x = mg.tensor([1.0, 2.0, 3.0], dtype=high, device=device, requires_grad=True)
    square, cube = SquareAndSingleCube.apply(x)
    assert (square.dtype, cube.dtype) == (high, low) and cube.requires_grad
    (g,) = mg.autograd.grad(_mixed_loss(x), x, create_graph=True)
    assert g.dtype == high and g.tolist() == [5.0, 160.0, 3300.0]
    assert mg.autograd.grad(g.sum(), x)[0].tolist() == [8.0, 140.0, 2000.0]
    # checkpointed: bitwise the plain gradient
    plain = mg.func.grad(_mixed_loss)(x.detach())
    kept = mg.func.grad(lambda t: mg.checkpoint.checkpoint(_mixed_loss, t))(x.detach())
    assert plain.numpy().tobytes() == kept.numpy().tobytes()
    # forward mode: torch fwAD tangents of (a, b) for the tangent [1, 1, 2] -> [2, 4, 12], [3, 12, 54] float32
    _, (t_square, t_cube) = mg.func.jvp(SquareAndSingleCube.apply, (x.detach(),),
                                        (mg.tensor([1.0, 1.0, 2.0], dtype=high, device=device),))
    assert (t_square.dtype, t_cube.dtype) == (high, low)
    assert t_square.tolist() == [2.0, 4.0, 12.0] and t_cube.tolist() == [3.0, 12.0, 54.0]


def test_real_and_complex_outputs_are_still_refused():
    class RealAndComplex(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 1j

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2

    with pytest.raises(NotImplementedError, match="real and complex differentiable outputs"):
        RealAndComplex.apply(mg.tensor([1.0, 2.0], requires_grad=True))
