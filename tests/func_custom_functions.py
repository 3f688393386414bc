"""Custom ``mg.autograd.Function``s of every style for the transform tests (``tests/test_func_random_writes.py``,
``tests/test_autograd_function.py``): the newer style (``setup_context`` apart, saved for both modes, a
``jvp``), the older ``forward(ctx, ...)``, several outputs with ``set_materialize_grads(False)`` and a
non-differentiable one, one that returns its argument, one that writes in place in ``forward``."""

from __future__ import annotations

import minigrad_ckpt as mg


class ExpSetupContext(mg.autograd.Function):
    """``exp`` in the newer style: ``forward`` without ctx, ``setup_context`` apart, its output saved for
    both modes."""

    @staticmethod
    def forward(x):
        return x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_tensors[0]

    @staticmethod
    def jvp(ctx, t):
        return t * ctx.saved_tensors[0]


class Mul(mg.autograd.Function):
    """``x * w`` of two tensors; the gradient of an input that needs none is None."""

    @staticmethod
    def forward(x, w):
        return x * w

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w = inputs  # (both saved for both modes: backward and jvp read the other factor)
        ctx.save_for_backward(x, w)
        ctx.save_for_forward(x, w)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return (g * w if ctx.needs_input_grad[0] else None, g * x if ctx.needs_input_grad[1] else None)

    @staticmethod
    def jvp(ctx, tx, tw):
        x, w = ctx.saved_tensors
        out = mg.zeros_like(x)
        if tx is not None:
            out = out + tx * w
        if tw is not None:
            out = out + x * tw
        return out


class OldSin(mg.autograd.Function):
    """``sin`` in the older style, ``forward(ctx, x)``; its backward is differentiable (cos)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * x.cos()


class Split(mg.autograd.Function):
    """Three outputs: ``2 x``, ``sin x`` and a non-differentiable index; backward takes None for an
    output no gradient reached."""

    @staticmethod
    def forward(x):
        return x * 2, x.sin(), x.argmax()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.mark_non_differentiable(output[2])
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def backward(ctx, g_double, g_sin, g_index):
        (x,) = ctx.saved_tensors
        out = mg.zeros_like(x)
        if g_double is not None:
            out = out + 2 * g_double
        if g_sin is not None:
            out = out + g_sin * x.cos()
        return out

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 2, t * x.cos(), None


class SquareAndExp(mg.autograd.Function):
    """Two outputs; backward and jvp read the second, saved as an output."""

    @staticmethod
    def forward(x):
        return x * x, x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output[1])
        ctx.save_for_forward(inputs[0], output[1])

    @staticmethod
    def backward(ctx, g_square, g_exp):
        x, e = ctx.saved_tensors
        return 2 * g_square * x + g_exp * e

    @staticmethod
    def jvp(ctx, t):
        x, e = ctx.saved_tensors
        return 2 * t * x, t * e


class IdentitySetupContext(mg.autograd.Function):
    """Returns its argument itself (PyTorch hands out a view of it)."""

    @staticmethod
    def forward(x):
        return x

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g

    @staticmethod
    def jvp(ctx, t):
        return t


class Shifted(IdentitySetupContext):
    """``x + 1`` written into a copy in place in forward, the copy returned; IdentitySetupContext's derivatives."""

    @staticmethod
    def forward(x):
        out = x.clone()
        out.add_(1.0)
        return out
