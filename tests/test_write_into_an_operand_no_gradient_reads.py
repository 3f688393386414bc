"""A write, under no_grad, into an operand that no needed gradient reads -- ``w`` in ``x @ w`` when only
``w`` needs a gradient, whose gradient ``x.T @ g`` reads ``x`` -- changes nothing backward computes, and
backward runs, as PyTorch's (``load_state_dict`` or an optimizer's step between a first layer's
forward and its backward).  The engine refused it with the version error ("modified by an inplace
operation") for matmul, mm, bmm, addmm, tensordot, einsum, linear, conv2d and division: their ops
checked every input they keep (``Op.grad_reads`` says which each gradient reads).  A write into an
operand a needed gradient does read is still refused, as PyTorch's.

Expected: the gradient the same call computes with no write (torch 2.13 gives it, and refuses the
same writes as here).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

RNG = np.random.default_rng(0)
X, W, C = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2)), RNG.random((4, 2)) + 1

CASES = {
    "matmul": lambda x, w, c: x @ w,
    "mm": lambda x, w, c: mg.mm(x, w),
    "bmm": lambda x, w, c: mg.bmm(x[None], w[None]),
    "addmm": lambda x, w, c: mg.addmm(mg.zeros(3, 2, dtype=x.dtype, device=x.device), x, w),
    "tensordot": lambda x, w, c: mg.tensordot(x, w, dims=1),
    "einsum": lambda x, w, c: mg.einsum("ij,jk->ik", x, w),
    "linear": lambda x, w, c: F.linear(x, w.T),
    "division": lambda x, w, c: w / c,
}


def _gradient(case, *, write_into, device="cpu"):
    x, c = mg.tensor(X, device=device), mg.tensor(C, device=device)
    w = mg.tensor(W, requires_grad=True, device=device)
    y = CASES[case](x, w, c)
    if write_into is not None:
        with mg.no_grad():
            target = {"x": x, "w": w, "c": c}[write_into]
            target.mul_(2)
    y.sum().backward()
    return mg.backend.to_host(w.grad._data)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_write_into_the_operand_no_gradient_reads_leaves_the_gradient(case, device):
    np.testing.assert_array_equal(_gradient(case, write_into="w", device=device),
                                  _gradient(case, write_into=None, device=device))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_write_into_the_operand_the_gradient_reads_is_still_refused(case):
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _gradient(case, write_into="c" if case == "division" else "x")


def test_load_state_dict_between_a_first_layers_forward_and_backward():
    # torch: the first layer's input needs no gradient, so neither its weight nor its bias is read
    layer = mg.nn.Linear(4, 2).double()
    x = mg.tensor(X)
    loss = layer(x).pow(2).sum()
    want = mg.autograd.grad(layer(x).pow(2).sum(), [layer.weight, layer.bias])
    layer.load_state_dict({"weight": mg.zeros(2, 4, dtype=mg.float64), "bias": mg.ones(2, dtype=mg.float64)})
    loss.backward()
    for p, w in zip((layer.weight, layer.bias), want):
        np.testing.assert_array_equal(p.grad.numpy(), w.numpy())


def test_a_conv_weight_written_between_forward_and_backward():
    conv = mg.nn.Conv2d(1, 2, 3).double()
    image = mg.tensor(RNG.standard_normal((1, 1, 5, 5)))
    want = mg.autograd.grad(conv(image).sum(), [conv.weight])[0]
    out = conv(image).sum()
    with mg.no_grad():
        conv.weight.zero_()
        conv.bias.zero_()
    out.backward()
    np.testing.assert_array_equal(conv.weight.grad.numpy(), want.numpy())


def test_both_operands_needing_gradients_keep_both_checked():
    x = mg.tensor(X, requires_grad=True)
    w = mg.tensor(W, requires_grad=True)
    y = (x @ w).sum()
    with mg.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_under_checkpoint_the_write_is_still_refused_as_the_replay_would_read_it():
    # a checkpointed segment replays its forward in backward: x @ w again, with the written w -- a
    # different value, so the engine refuses rather than answer from it
    x, w = mg.tensor(X), mg.tensor(W, requires_grad=True)
    y = mg.checkpoint.checkpoint(lambda a, b: (a @ b).tanh(), x, w).sum()
    with mg.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError):
        y.backward()


# hypot, addcmul, addcdiv and lerp by a tensor weight refused every such write: they declared no
# grad_reads.  Each row: the call with only ``w`` needing a gradient, the operands a write into which
# PyTorch 2.13 allows there (and so does the engine now), and those it refuses.
MORE = {
    "hypot(w, c)": (lambda x, w, c: mg.hypot(w, c), "c", "w"),  # w's gradient g * w / hypot
    "hypot(c, w)": (lambda x, w, c: mg.hypot(c, w), "c", "w"),
    "addcmul(c, w, x)": (lambda x, w, c: mg.addcmul(c, w, x, value=0.5), "w", "x"),  # g * x * value
    "addcmul(w, x, c)": (lambda x, w, c: mg.addcmul(w, x, c, value=0.5), "xc", ""),  # g
    "addcdiv(c, w, x)": (lambda x, w, c: mg.addcdiv(c, w, x, value=0.5), "w", "x"),  # g * value / x
    "addcdiv(w, x, c)": (lambda x, w, c: mg.addcdiv(w, x, c, value=0.5), "x", "c"),  # g (PyTorch keeps c)
    "lerp(w, x, c)": (lambda x, w, c: mg.lerp(w, x, c), "wx", "c"),  # g * (1 - weight)
    "lerp(x, w, c)": (lambda x, w, c: mg.lerp(x, w, c), "wx", "c"),  # g * weight
}


def _gradient_of_more(case, write_into):
    x, c = mg.tensor(X[:, :2] + 2), mg.tensor(C[:3] / 4)  # (lerp's weight in [0.25, 0.5))
    w = mg.tensor(W[:3], requires_grad=True)
    y = MORE[case][0](x, w, c)
    if write_into:
        with mg.no_grad():
            {"x": x, "w": w, "c": c}[write_into].mul_(2)
    y.backward(mg.ones_like(y))
    return w.grad.numpy()


@pytest.mark.parametrize("case", sorted(MORE))
def test_more_ops_leave_the_gradient_after_a_write_into_what_it_does_not_read(case):
    want = _gradient_of_more(case, None)
    for name in MORE[case][1]:
        np.testing.assert_array_equal(_gradient_of_more(case, name), want)
    for name in MORE[case][2]:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _gradient_of_more(case, name)
