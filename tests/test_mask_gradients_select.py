"""A mask derivative selects the gradient, as PyTorch's ``threshold_backward`` and its kin do.

``relu``, ``threshold``, ``hardtanh`` (``relu6``), ``hardshrink``, ``softshrink`` and ``hardsigmoid``
differentiate to a mask, and PyTorch's backward kernels *select*: ``mask ? grad : 0``.  The engine
multiplied by the mask, which differs where the mask is False: an infinite or NaN gradient gave
``inf * 0 = NaN`` (with a RuntimeWarning) where PyTorch gives 0, and a negative one gave -0.0 where
PyTorch gives +0.0.  ``xp.gradient_where`` selects -- on the CPU by ANDing the gradient's bits with
the mask spread to whole words, since NumPy's ``where`` branches per element -- in both modes, on
every device, and under ``create_graph`` as a differentiable ``where``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.backend import numpy_namespace as xp
from minigrad_ckpt.nn import functional as F

# every blocked position gets one of these gradients; every passing one too
GRADS = [np.inf, -np.inf, np.nan, -2.0, -0.0, 3.0]

# (name, function, an input where the mask blocks, an input where it passes, the factor where it passes)
OPS = [
    ("relu", mg.relu, -1.0, 2.0, 1.0),
    ("threshold", lambda t: F.threshold(t, 0.5, 2.0), 0.25, 1.0, 1.0),
    ("hardtanh", F.hardtanh, 1.5, 0.5, 1.0),
    ("relu6", F.relu6, 7.0, 3.0, 1.0),
    ("hardshrink", F.hardshrink, 0.25, -2.0, 1.0),
    ("softshrink", F.softshrink, -0.25, 2.0, 1.0),
    ("hardsigmoid", F.hardsigmoid, -4.0, 1.0, 0.1666666716337204),
]


def exact(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), (got, want)


@pytest.mark.parametrize("device,dtype", [("cpu", np.float64), ("cpu", np.float32), ("strict", np.float64),
                                          ("strict-f32", np.float32)])
@pytest.mark.parametrize("name,fn,blocked,passing,factor", OPS, ids=[op[0] for op in OPS])
def test_a_blocked_gradient_is_plus_zero_and_a_passing_one_passes(name, fn, blocked, passing, factor, device, dtype):
    n = len(GRADS)
    x = np.array([blocked] * n + [passing] * n, dtype=dtype)
    g = np.array(GRADS * 2, dtype=dtype)
    t = mg.tensor(x, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no "invalid value in multiply" either
        fn(t).backward(mg.tensor(g, device=device))
    want = np.concatenate([np.zeros(n, dtype), g[n:] * dtype(factor)])
    exact(t.grad.numpy(), want)
    # forward mode: the tangent through the same selection
    _, tangent_out = mg.func.jvp(fn, (mg.tensor(x, device=device),), (mg.tensor(g, device=device),))
    exact(tangent_out.numpy(), want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_kernel_is_numpys_where_to_the_bit_in_every_layout(dtype):
    rng = np.random.default_rng(3)
    v = rng.standard_normal((6, 5, 8, 7)).astype(dtype)
    v.flat[::7] = np.inf
    v.flat[1::11] = np.nan
    v.flat[2::13] = -0.0
    mask = rng.random(v.shape) < 0.5
    layouts = [lambda a: a, lambda a: np.ascontiguousarray(a.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3),
               lambda a: a.transpose(3, 2, 1, 0), lambda a: a[:, ::2, 1:, ::3]]
    for lay_v in layouts:
        for lay_m in layouts[:2]:
            vv, mm = lay_v(v), lay_m(mask) if lay_v is layouts[0] else lay_v(mask)
            exact(xp.gradient_where(mm, vv), np.where(mm, vv, dtype(0)))
    exact(xp.gradient_where(np.bool_(False), np.array(-np.inf, dtype)), np.array(0, dtype))  # 0-d
    exact(xp.gradient_where(mask[:1], v), np.where(mask[:1], v, dtype(0)))  # a mask that broadcasts


def test_second_derivatives_and_checkpoint_replay_see_the_selection():
    """Seams: the gradient made with ``create_graph`` is the same selection, and differentiable (a
    second backward through it); a checkpointed relu block gives the plain step's bits when an
    infinite gradient reaches it."""
    x = mg.tensor(np.array([-1.0, 2.0, -3.0, 0.5]), requires_grad=True)
    g = mg.tensor(np.array([np.inf, 1.0, -2.0, 4.0]), requires_grad=True)
    (gx,) = mg.autograd.grad(mg.relu(x * 1.0), x, g, create_graph=True)
    exact(gx.numpy(), np.array([0.0, 1.0, 0.0, 4.0]))
    (gg,) = mg.autograd.grad(gx.sum(), g)
    exact(gg.numpy(), np.array([0.0, 1.0, 0.0, 1.0]))

    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 5))
    xs = rng.standard_normal((3, 5))

    def grads(checkpointed):
        xt, wt = mg.tensor(xs, requires_grad=True), mg.tensor(w, requires_grad=True)
        block = lambda a, b: F.relu(a @ b) * 2.0  # noqa: E731
        out = mg.checkpoint.checkpoint(block, xt, wt) if checkpointed else block(xt, wt)
        up = np.ones(out.shape)
        up[0, 0] = np.inf
        with np.errstate(invalid="ignore"):  # (inf times the zeros of a product's other operand)
            out.backward(mg.tensor(up))
        return xt.grad.numpy(), wt.grad.numpy()

    for a, b in zip(grads(False), grads(True)):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- maximum and minimum
def torch_share(g, loses, tie):
    """PyTorch's ``where(self == other, grad / 2, grad).masked_fill_(loses, 0)``, written with NumPy."""
    with np.errstate(invalid="ignore"):
        return np.where(loses, g.dtype.type(0), np.where(tie, g / 2, g))


@pytest.mark.parametrize("device,dtype", [("cpu", np.float64), ("cpu", np.float32), ("strict-f32", np.float32)])
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_and_minimum_share_and_mask_the_gradient_as_pytorch(name, device, dtype):
    """The loser gets +0.0 whatever the gradient, tied operands half of it (an infinite one too),
    either operand all of it where one is NaN: a sum of masked products gave NaN and -0.0."""
    rng = np.random.default_rng(8)
    vals = np.array([1.0, 2.0, -0.0, 0.0, np.nan, np.inf, -np.inf], dtype)
    x, y = rng.choice(vals, 300), rng.choice(vals, 300)
    g = rng.choice(np.array([np.inf, -np.inf, np.nan, -2.0, -0.0, 3.0], dtype), 300)
    tx, ty = mg.tensor(x, device=device, requires_grad=True), mg.tensor(y, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        getattr(mg, name)(tx, ty).backward(mg.tensor(g, device=device))
    gt = np.greater if name == "maximum" else np.less
    with np.errstate(invalid="ignore"):
        exact(tx.grad.numpy(), torch_share(g, gt(y, x), x == y))
        exact(ty.grad.numpy(), torch_share(g, gt(x, y), x == y))
    _, t_out = mg.func.jvp(lambda a: getattr(mg, name)(a, mg.tensor(y, device=device)), (mg.tensor(x, device=device),),
                           (mg.tensor(g, device=device),))
    exact(t_out.numpy(), torch_share(g, gt(y, x), x == y))


def test_transforms_closures_and_in_place_writes_see_the_selection():
    """Seams: ``func.grad`` of a function that closes over a weight and writes relu in place, and
    ``vmap`` of it over a batch; a scale that is infinite where relu blocks, a max pool and a
    maximum after it -- the blocked places get +0.0, never NaN, as the rule written out by hand."""
    rng = np.random.default_rng(9)
    w = mg.tensor(rng.standard_normal((2, 4, 4)))
    scale = np.where(rng.random((2, 2, 2)) < 0.5, np.inf, 1.0)

    def f(x):
        h = x * w
        F.relu(h, inplace=True)  # a recorded in-place write
        pooled = F.max_pool2d(h[None], 2)[0]
        return (mg.maximum(pooled, mg.tensor(0.5)) * mg.tensor(np.where(pooled.detach().numpy() > 0.5, 1.0,
                                                                              scale))).sum()

    x = rng.standard_normal((2, 4, 4))
    with np.errstate(invalid="ignore"):
        g = mg.func.grad(f)(mg.tensor(x)).numpy()
        batched = mg.func.vmap(mg.func.grad(f))(mg.tensor(np.stack([x, -x]))).numpy()
        single = mg.func.grad(f)(mg.tensor(-x)).numpy()
    assert not np.isnan(g).any() and not np.isnan(batched).any()
    np.testing.assert_array_equal(batched[0], g)
    np.testing.assert_array_equal(batched[1], single)
    h = np.maximum(x * w.numpy(), 0)
    windows = h.reshape(2, 2, 2, 2, 2).transpose(0, 1, 3, 2, 4).reshape(2, 2, 2, 4)
    first = windows.argmax(-1)
    top = windows.max(-1)
    want = np.zeros_like(windows)
    passes = top > 0.5  # maximum(pooled, 0.5): the pooled value wins; where it loses its gradient is +0.0
    np.put_along_axis(want, first[..., None], np.where(passes, 1.0, 0.0)[..., None], -1)
    to_h = want.reshape(2, 2, 2, 2, 2).transpose(0, 1, 3, 2, 4).reshape(2, 4, 4)
    exact(g, np.where(x * w.numpy() > 0, to_h, 0.0) * w.numpy())  # relu selects, then the product by w
