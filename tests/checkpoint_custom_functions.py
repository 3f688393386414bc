"""Custom ``mg.autograd.Function``s whose backward reads what only their ``forward`` makes -- a noise
it drew, an intermediate -- for the checkpoint tests: their node is the one a replay must run
again, from the generator state the forward pass had."""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F


class NoisyScale(mg.autograd.Function):
    """``x * u`` with uniform noise ``u`` drawn in ``forward`` and saved for backward."""

    @staticmethod
    def forward(ctx, x):
        noise = mg.rand_like(x)
        ctx.save_for_backward(noise)
        return x * noise

    @staticmethod
    def backward(ctx, grad):
        (noise,) = ctx.saved_tensors
        return grad * noise


class DropoutInside(mg.autograd.Function):
    """A dropout mask drawn by ``F.dropout`` in ``forward``, saved for backward."""

    @staticmethod
    def forward(ctx, x):
        mask = F.dropout(mg.ones_like(x), 0.5)
        ctx.save_for_backward(mask)
        return x * mask

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask


class SinSavingCos(mg.autograd.Function):
    """``sin(x)`` whose backward reads ``cos(x)``, an intermediate ``forward`` saved."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.cos())
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (cos,) = ctx.saved_tensors
        return grad * cos


class ScaledProduct(mg.autograd.Function):
    """``sin(x) * y`` saving both inputs, and a mask marked non-differentiable: called as
    ``ScaledProduct.apply(h, h)`` the two saved inputs are one argument given twice."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        mask = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        return x.sin() * y, mask

    @staticmethod
    def backward(ctx, grad, grad_mask):
        x, y = ctx.saved_tensors
        return grad * x.cos() * y, grad * x.sin()
