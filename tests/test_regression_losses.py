"""The regression losses (mse, l1, smooth L1, Huber) as one op each, reduction included: bitwise
the composite of ops they replace in values and tangents, PyTorch's backward kernels' arithmetic
in gradients, right at ±inf, and at the
seams (second derivatives, function transforms with a closed-over target, checkpointing, in-place
writes recorded on the tape, float32 and the strict devices)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint

F = mg.nn.functional
KINDS = ["mse", "l1", "smooth_l1", "huber"]


def composite(x, y, p, reduction, kind):
    """The nodes the ops replace (PyTorch's forward kernels' arithmetic, term for term)."""
    d = x - y
    a = mg.abs(d)
    if kind == "mse":
        loss = d * d
    elif kind == "l1":
        loss = a
    elif kind == "smooth_l1":
        loss = mg.where(a < p, 0.5 * a * a / p, a - 0.5 * p)
    else:
        loss = mg.where(a < p, 0.5 * a * a, p * (a - 0.5 * p))
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def kernel_gradient(xv, yv, gv, p, reduction, kind):
    """d loss / d input as PyTorch's CPU backward kernels round it (mse_backward, the vectorized
    smooth_l1_backward and huber_backward: (norm * slope) * g, norm = 1 / numel for mean); l1 is
    PyTorch's composite, (g / numel) * sign(d)."""
    d = xv - yv
    n = max(d.size, 1)
    g = gv if reduction == "none" else np.ones((), d.dtype)
    norm = (1.0 / n if reduction == "mean" else 1.0)
    with np.errstate(all="ignore"):
        if kind == "mse":
            return (d.dtype.type(2 * norm) * d) * g
        if kind == "l1":
            return (g / d.dtype.type(n) if reduction == "mean" else g) * np.sign(d)
        if kind == "smooth_l1":
            slope = np.where(np.abs(d) >= p, np.sign(d), d / d.dtype.type(p))
        else:
            slope = np.where(np.abs(d) >= p, np.sign(d) * d.dtype.type(p), d)
        return (d.dtype.type(norm) * slope) * g


def fused(x, y, p, reduction, kind):
    if kind == "mse":
        return F.mse_loss(x, y, reduction=reduction)
    if kind == "l1":
        return F.l1_loss(x, y, reduction=reduction)
    if kind == "smooth_l1":
        return F.smooth_l1_loss(x, y, reduction=reduction, beta=p)
    return F.huber_loss(x, y, reduction=reduction, delta=p)


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from(["float32", "float64"]), reduction=st.sampled_from(["mean", "sum", "none"]),
       kind=st.sampled_from(KINDS), p=st.sampled_from([0.5, 1.0, 1.3]), data=st.data())
def test_values_gradients_and_tangents_are_the_composites_bit_for_bit(dtype, reduction, kind, p, data):
    shape = data.draw(st.sampled_from([(), (1,), (5,), (3, 4), (0,)]))
    elems = st.one_of(st.sampled_from([0.0, -0.0, p, -p, 2 * p]), st.floats(-50, 50, width=32))
    xv, yv, tx, ty = (data.draw(hnp.arrays(dtype, shape, elements=elems)) for _ in range(4))
    gv = data.draw(hnp.arrays(dtype, shape, elements=st.floats(-2, 2, width=32)))
    results = []
    for f in (fused, composite):
        x, y = mg.tensor(xv, requires_grad=True), mg.tensor(yv, requires_grad=True)
        loss = f(x, y, p, reduction, kind)
        grads = mg.grad(loss, [x, y], grad_outputs=[mg.tensor(gv)] if reduction == "none" else None)
        _, tangent = mg.func.jvp(lambda a, b, f=f: f(a, b, p, reduction, kind), (mg.tensor(xv), mg.tensor(yv)),
                                 (mg.tensor(tx), mg.tensor(ty)))
        results.append([loss.numpy(), *(g.numpy() for g in grads), tangent.numpy()])
    for a, b in zip(results[0], results[1]):
        assert a.dtype == np.dtype(dtype) and a.shape == b.shape
    np.testing.assert_array_equal(results[0][0], results[1][0])
    expected = kernel_gradient(xv, yv, gv, p, reduction, kind)
    np.testing.assert_array_equal(results[0][1], expected)
    np.testing.assert_array_equal(results[0][2], -expected)
    # the tangent: bitwise for mse and l1; smooth L1 and Huber apply their gradient's rule to it,
    # whose quadratic branch rounds (v c) d twice where the composite rounds (v d + d v) c
    tangent, expected = results[0][3], results[1][3]
    if kind in ("mse", "l1"):
        np.testing.assert_array_equal(tangent, expected)
    else:
        tol = 1e-6 if dtype == "float32" else 1e-14
        np.testing.assert_allclose(tangent, expected, rtol=tol, atol=tol * float(np.abs(tx).sum() + 1))


def test_infinite_differences_get_the_linear_branchs_gradient_as_in_pytorch():
    # torch.nn.functional.smooth_l1_loss / huber_loss at d = [inf, -inf, 0.5]: values
    # [inf, inf, 0.125] and gradients [1, -1, 0.5] (delta: [1.5, -1.5, 0.5] for delta = 1.5)
    x = mg.tensor([np.inf, -np.inf, 0.5], requires_grad=True)
    loss = F.smooth_l1_loss(x, mg.zeros(3), reduction="none")
    np.testing.assert_array_equal(loss.numpy(), [np.inf, np.inf, 0.125])
    (g,) = mg.grad(loss.sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [1.0, -1.0, 0.5])
    (g,) = mg.grad(F.huber_loss(x, mg.zeros(3), reduction="sum", delta=1.5), [x])
    np.testing.assert_array_equal(g.numpy(), [1.5, -1.5, 0.5])


@pytest.mark.parametrize("kind, op", [("mse", "MSELoss"), ("l1", "L1Loss"), ("smooth_l1", "SmoothL1Loss"),
                                      ("huber", "HuberLoss")])
def test_one_node_per_loss(kind, op):
    x = mg.tensor(np.array([0.3, -2.0, 1.0]), requires_grad=True)
    nodes = mg.tape.walk(fused(x * 1.0, mg.zeros(3), 0.5, "mean", kind))
    assert [n.op.name for n in nodes] == ["Mul", op]


def test_complex_differences_keep_the_composite():
    z = mg.tensor(np.array([1 + 2j, -1j]), requires_grad=True)
    np.testing.assert_allclose(F.l1_loss(z, mg.zeros(2, dtype="complex128")).numpy(), (5 ** 0.5 + 1) / 2)
    assert "L1Loss" not in [n.op.name for n in mg.tape.walk(F.l1_loss(z, mg.zeros(2, dtype="complex128")))]
    # mse of complex numbers is refused, as PyTorch's: d ** 2 is no squared distance
    # (tests/test_complex_refusals_activations.py)
    with pytest.raises(TypeError, match="mse_loss: complex input"):
        F.mse_loss(z, mg.zeros(2, dtype="complex128"))


def test_second_derivatives_through_the_op():
    x = mg.tensor(np.array([0.3, -2.0, 1.0]), requires_grad=True)
    loss = F.smooth_l1_loss(x, mg.zeros(3), beta=0.5)
    (g,) = mg.grad(loss, [x], create_graph=True)
    (h,) = mg.grad((g * g).sum(), [x])  # d/dx sum(g^2) = 2 g g' ; g' = 1/(3 beta) inside, 0 outside
    np.testing.assert_allclose(h.numpy(), [2 * (0.3 / 0.5 / 3) / (3 * 0.5), 0.0, 0.0])


# torch 2.13, float64: x = tensor([1.5, -1.5, 0.3, 2.0], requires_grad=True);
# g, = grad(F.huber_loss(x, zeros(4), reduction=r, delta=1.5), x, create_graph=True); grad((g * g).sum(), x):
# "sum" [0, 0, 0.6, 0], "mean" [0, 0, 0.0375, 0] -- at |d| = delta the second derivative is the linear branch's 0
HUBER_KINK_HESSIAN = {"sum": [0.0, 0.0, 0.6, 0.0], "mean": [0.0, 0.0, 0.0375, 0.0]}


@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
def test_huber_second_derivative_at_abs_d_equal_delta_is_the_linear_branchs(reduction, device, dtype):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    xv = np.array([1.5, -1.5, 0.3, 2.0], dtype=dtype)
    target = mg.zeros(4, dtype=dtype).to(device)
    expected = HUBER_KINK_HESSIAN[reduction]

    def loss(t):
        return F.huber_loss(t, target, reduction=reduction, delta=1.5)

    def penalty(t):  # sum(g^2) of the gradient g: its gradient is 2 g g''
        (g,) = mg.grad(loss(t), [t], create_graph=True)
        return (g * g).sum()

    x = mg.tensor(xv).to(device).requires_grad_()
    (h,) = mg.grad(penalty(x), [x])
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-6, atol=0)
    (hc,) = mg.grad(checkpoint.checkpoint(penalty, x, use_reentrant=False), [x])
    np.testing.assert_array_equal(hc.numpy(), h.numpy())
    # forward over reverse: the Hessian's diagonal (it is diagonal) from jvp of the gradient
    _, hv = mg.func.jvp(mg.func.grad(loss), (mg.tensor(xv).to(device),), (mg.ones(4, dtype=dtype).to(device),))
    g = mg.func.grad(loss)(mg.tensor(xv).to(device))
    np.testing.assert_allclose((2 * g * hv).numpy(), expected, rtol=1e-6, atol=0)
    # the value and the first derivative there are both branches' (torch: 2.25 and [1.5, -1.5, 0.3, 1.5])
    x = mg.tensor(xv).to(device).requires_grad_()
    (g,) = mg.grad(F.huber_loss(x, target, reduction="sum", delta=1.5), [x])
    np.testing.assert_allclose(F.huber_loss(x[:2], target[:2], reduction="sum", delta=1.5).item(), 2.25, rtol=1e-7)
    np.testing.assert_allclose(g.numpy(), [1.5, -1.5, 0.3, 1.5], rtol=1e-6)


def test_inside_a_checkpoint_the_gradient_is_bitwise_the_same():
    rng = np.random.default_rng(3)
    w = mg.tensor(rng.standard_normal((4, 1)), requires_grad=True)
    xs, ys = mg.tensor(rng.standard_normal((16, 4))), mg.tensor(rng.standard_normal((16, 1)))

    def body(w):
        return F.huber_loss(xs @ w, ys, delta=0.7) + F.smooth_l1_loss(xs @ w, ys, beta=0.3)

    (plain,) = mg.grad(body(w), [w])
    (ckpt,) = mg.grad(checkpoint.checkpoint(body, w), [w])
    np.testing.assert_array_equal(plain.numpy(), ckpt.numpy())


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
def test_at_the_seams_transforms_with_a_closed_over_target_checkpointing_and_in_place(kind, device, dtype):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    rng = np.random.default_rng(5)
    xv, yv = rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal((3, 4)).astype(dtype)
    target = mg.tensor(yv).to(device)  # closed over by the functions below, never an argument
    tol = 1e-5 if dtype == "float32" else 1e-12

    def loss(t):
        return fused(t, target, 0.8, "mean", kind)

    def reference(t):
        return composite(t, target, 0.8, "mean", kind)

    x = mg.tensor(xv).to(device)
    expected = kernel_gradient(xv, yv, np.ones((), dtype), 0.8, "mean", kind)
    np.testing.assert_array_equal(mg.func.grad(loss)(x).numpy(), expected)
    v = mg.tensor(rng.standard_normal((3, 4)).astype(dtype)).to(device)
    np.testing.assert_allclose(mg.func.jvp(loss, (x,), (v,))[1].numpy(), mg.func.jvp(reference, (x,), (v,))[1].numpy(),
                               rtol=tol, atol=tol)
    if kind != "l1":  # l1's Hessian is 0 almost everywhere: nothing to compare but zeros
        np.testing.assert_allclose(mg.func.hessian(loss)(x).numpy(), mg.func.hessian(reference)(x).numpy(),
                                   rtol=tol, atol=tol)
    # checkpointed, bitwise the plain gradient; and through an in-place write recorded on the tape
    plain, ckpt = (mg.tensor(xv).to(device).requires_grad_() for _ in range(2))
    loss(plain * 2.0).backward()
    checkpoint.checkpoint(lambda t: loss(t * 2.0), ckpt).backward()
    assert np.array_equal(ckpt.grad.numpy(), plain.grad.numpy())
    w = mg.tensor(xv).to(device).requires_grad_()
    h = w * 1.0
    h *= 2.0  # recorded in place
    loss(h).backward()
    assert np.array_equal(w.grad.numpy(), plain.grad.numpy())


def test_a_tape_with_the_losses_snapshots_and_restores_bitwise(tmp_path):
    """The ops are plain data (their reduction and beta/delta are attributes the snapshot
    decoder checks): a recorded tape holding all four restores and backpropagates the same bits."""
    from tape_snapshots import gradients_before_and_after_restore

    nn = mg.nn

    def build():
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        return model, mg.Executor(model, mg.optim.SGD(model.parameters(), lr=0.1))

    x, y = mg.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 4.0]]), mg.tensor([[0.5, -1.0], [2.0, 0.0]])

    def loss_of(model):
        out = model(x)
        return (F.mse_loss(out, y) + F.l1_loss(out, y, reduction="sum") + F.smooth_l1_loss(out, y, beta=0.5)
                + F.huber_loss(out, y, delta=0.7, reduction="none").sum())

    before, after = gradients_before_and_after_restore(build, loss_of, tmp_path / "t.mgsnap")
    assert after == before
