"""The output of a custom ``autograd.Function`` *is* the tensor its ``forward`` returned, as in PyTorch,
where that very object takes the node's history.  Code that keeps the output on ``ctx`` as an attribute
(``ctx.result = result``: the forward-AD tutorial's ``Fn``, whose ``jvp`` reads it) therefore reads a
tensor with a history, and a gradient built from it with ``create_graph=True`` differentiates through the
function again.  The engine handed out a new tensor and left the returned one without history: the
second derivative of ``(Exp.apply(x) ** 2).sum()`` lost the term that goes through ``ctx.result`` (half
of torch's), ``gradgradcheck`` failed, and the tangent a ``jvp`` built from ``ctx.result`` did not
require grad.  torch 2.13's answers (float64, then float32) are pasted below.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck

fwAD = mg.autograd.forward_ad
X, TANGENT = [0.5, 1.0, -0.25], [1.0, 2.0, -3.0]
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
TORCH = {  # torch 2.13, the programs below
    "second": ([5.436563656918091, 14.778112197861299, 1.2130613194252668],
               [10.873127313836182, 29.556224395722598, 2.4261226388505337]),
    "two": ([4.946163812100385, 10.87312731383618, 1.1682011746071073],
            [8.243606353500642, 16.30969097075427, 2.7258027407499172]),
    "jvp": [1.6487212707001282, 5.43656365691809, -2.3364023492142145],
}


class Exp(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = mg.exp(x)
        ctx.result = result  # the output, kept as an attribute (not save_for_backward)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.result

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * ctx.result


class ExpAndDouble(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a, b = x * 2, x.exp()
        ctx.b = b
        return a, b

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        return grad_a * 2 + grad_b * ctx.b


def _close(t, expected, dtype):
    rtol = 1e-13 if dtype == mg.float64 else 1e-6
    np.testing.assert_allclose(t.detach().cpu().numpy(), expected, rtol=rtol)


def _second(fn, x, wrap=lambda f, *a: f(*a)):
    loss = wrap(fn, x)
    (g,) = mg.autograd.grad(loss, x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    return g, h


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_the_output_kept_on_ctx_is_differentiated_again(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    g, h = _second(lambda x: (Exp.apply(x) ** 2).sum(), x)
    _close(g, TORCH["second"][0], dtype)
    _close(h, TORCH["second"][1], dtype)  # was half of it: no path through ctx.result
    assert mg.autograd.gradgradcheck(Exp.apply, mg.tensor(X, dtype=mg.float64, requires_grad=True))


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_one_output_of_two_kept_on_ctx(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)

    def loss(x):
        a, b = ExpAndDouble.apply(x)
        return (a * b).sum()

    g, h = _second(loss, x)
    _close(g, TORCH["two"][0], dtype)
    _close(h, TORCH["two"][1], dtype)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_inside_a_checkpoint(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    g, h = _second(lambda x: (Exp.apply(x) ** 2).sum(), x, wrap=ck.checkpoint)
    _close(g, TORCH["second"][0], dtype)
    _close(h, TORCH["second"][1], dtype)


def test_the_returned_object_is_the_output():
    kept = {}

    class Double(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            kept["made"] = y = x * 2
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = mg.tensor(X, requires_grad=True)
    y = Double.apply(x)
    assert kept["made"] is y and y.requires_grad and y.grad_fn.name() == "DoubleBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_a_view_of_the_argument_is_not_taken():
    kept = {}

    class First(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            kept["made"] = v = x[:2]
            return v

        @staticmethod
        def backward(ctx, g):
            return mg.cat([g, mg.zeros(1, dtype=g.dtype)])

    x = mg.tensor(X, requires_grad=True)
    y = First.apply(x * 1)
    assert kept["made"] is not y and not kept["made"].requires_grad  # (PyTorch's view machinery, not taken)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_jvp_reading_ctx_result_gives_a_tangent_with_history(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, mg.tensor(TANGENT, dtype=dtype, device=device))
        tangent = fwAD.unpack_dual(Exp.apply(dual)).tangent
        _close(tangent, TORCH["jvp"], dtype)
        assert tangent.requires_grad  # torch: grad_fn=<MulBackward0>
        (g,) = mg.autograd.grad(tangent.sum(), x)
    _close(fwAD.unpack_dual(g).primal, TORCH["jvp"], dtype)  # d(sum t * e^x)/dx = t * e^x
