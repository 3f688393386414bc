"""Smooth L1 and Huber as one op each: bitwise the composite they replace, and right at ±inf."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint

F = mg.nn.functional


def composite(x, y, p, reduction, kind):
    """The seven-node form the ops replace (their arithmetic, term for term)."""
    d = x - y
    a = mg.abs(d)
    if kind == "smooth_l1":
        loss = mg.where(a < p, d * d * (0.5 / p), a - 0.5 * p)
    else:
        loss = mg.where(a <= p, d * d * 0.5, (a - 0.5 * p) * p)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def fused(x, y, p, reduction, kind):
    if kind == "smooth_l1":
        return F.smooth_l1_loss(x, y, reduction=reduction, beta=p)
    return F.huber_loss(x, y, reduction=reduction, delta=p)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(["float32", "float64"]), reduction=st.sampled_from(["mean", "sum", "none"]),
       kind=st.sampled_from(["smooth_l1", "huber"]), p=st.sampled_from([0.5, 1.0, 1.3]),
       data=st.data())
def test_values_and_gradients_are_the_composites_bit_for_bit(dtype, reduction, kind, p, data):
    n = data.draw(st.integers(1, 12))
    elems = st.one_of(st.sampled_from([0.0, -0.0, p, -p, 2 * p]), st.floats(-50, 50, width=32))
    xv = data.draw(hnp.arrays(dtype, n, elements=elems))
    yv = data.draw(hnp.arrays(dtype, n, elements=elems))
    gv = data.draw(hnp.arrays(dtype, n, elements=st.floats(-2, 2, width=32)))
    results = []
    for f in (fused, composite):
        x, y = mg.tensor(xv, requires_grad=True), mg.tensor(yv, requires_grad=True)
        loss = f(x, y, p, reduction, kind)
        grads = mg.grad(loss, [x, y], grad_outputs=[mg.tensor(gv)] if reduction == "none" else None)
        results.append([loss.numpy(), *(g.numpy() for g in grads)])
    for a, b in zip(*results):
        assert a.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(a, b)


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


def test_one_node_per_loss_and_second_derivatives_through_it():
    x = mg.tensor(np.array([0.3, -2.0, 1.0]), requires_grad=True)
    loss = F.smooth_l1_loss(x, mg.zeros(3), beta=0.5)
    assert [n.op.name for n in mg.tape.walk(loss)][-2:] == ["SmoothL1", "Mean"]
    (g,) = mg.grad(loss, [x], create_graph=True)
    (h,) = mg.grad((g * g).sum(), [x])  # d/dx sum(g^2) = 2 g g' ; g' = 1/(3 beta) inside, 0 outside
    np.testing.assert_allclose(h.numpy(), [2 * (0.3 / 0.5 / 3) / (3 * 0.5), 0.0, 0.0])


def test_inside_a_checkpoint_the_gradient_is_bitwise_the_same():
    rng = np.random.default_rng(3)
    w = mg.tensor(rng.standard_normal((4, 1)), requires_grad=True)
    xs, ys = mg.tensor(rng.standard_normal((16, 4))), mg.tensor(rng.standard_normal((16, 1)))

    def body(w):
        return F.huber_loss(xs @ w, ys, delta=0.7) + F.smooth_l1_loss(xs @ w, ys, beta=0.3)

    (plain,) = mg.grad(body(w), [w])
    (ckpt,) = mg.grad(checkpoint.checkpoint(body, w), [w])
    np.testing.assert_array_equal(plain.numpy(), ckpt.numpy())
