"""``addcmul`` and ``addcdiv``, ``input + value * tensor1 * tensor2`` and ``input + value * tensor1 /
tensor2``, as PyTorch's kernels compute them and its derivatives (derivatives.yaml) read them.

One op each, not a composition of a product, a quotient and a sum: the composition's chain rule
multiplied in another order (``(g * tensor2) * value`` for PyTorch's ``g * (tensor2 * value)``;
``(g * value) / tensor2`` for ``g * (value / tensor2)``; ``tensor2``'s as ``-(value * tensor1 /
tensor2) / tensor2`` for ``-g * ((value * tensor1) / (tensor2 * tensor2))``), which put a third of
the gradients and tangents a unit in the last place off PyTorch's.

Each formula rounds as PyTorch's separate kernels do: for float16, every product and quotient is
computed in float32 and rounded to float16 (a kernel of its own each); the forward is one kernel,
computed in float32 and rounded once.  ``value`` enters as PyTorch converts it: to the dtype the
kernel computes in (float32 for float16) where it multiplies, and -- in ``addcdiv``'s gradient in
``tensor1`` -- to the tensors' own dtype, since PyTorch's ``value / tensor2`` fills a tensor of
``tensor2``'s dtype with it first.  PyTorch's CPU forward of ``addcmul`` is a fused multiply-add in
its vectorised loop; here the product is rounded, then the sum (docs/from-pytorch.md, "Where PyTorch
rounds once"), so about a quarter of float32/float64 values of ``addcmul`` are a unit off PyTorch's.
"""

from __future__ import annotations

from typing import Any

from ..backend import HALF, host_numpy
from .base import Op
from .elementwise import _to_float32 as _widened  # (float16 arrays in float32, others as they are)
from .interpolation import _narrowed


def _in_dtype(value: Any, dtype: Any) -> Any:
    """The number ``value`` rounded to ``dtype`` (its real part's for a real number), as a Python
    number: a NumPy product with it stays in the array's dtype."""
    dtype = host_numpy.dtype(dtype)
    if isinstance(value, complex) and dtype.kind == "c":
        return complex(dtype.type(value))
    return float(dtype.type(0).real.dtype.type(value))


def _opmath(value: Any, like: Any) -> Any:
    """``value`` as PyTorch's kernels read a scalar: in the dtype they compute ``like`` in."""
    return _in_dtype(value, host_numpy.float32 if like.dtype is HALF else like.dtype)


def _times(a: Any, b: Any, like: Any) -> Any:
    """``a * b`` as one PyTorch kernel: float16 in float32, rounded once."""
    return _narrowed(_widened(a) * _widened(b), like)


def _over(a: Any, b: Any, like: Any) -> Any:
    with host_numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _narrowed(_widened(a) / _widened(b), like)


def _scaled(t: Any, value: Any, like: Any) -> Any:
    """PyTorch's ``maybe_multiply(t, value)``: ``t`` itself where ``value`` is 1."""
    return t if value == 1 else _times(t, _opmath(value, like), like)


class Addcmul(Op):
    """``input + value * tensor1 * tensor2`` (PyTorch's ``AddcmulBackward0``): ``d/dinput = g``,
    ``d/dtensor1 = g * (tensor2 * value)``, ``d/dtensor2 = g * (tensor1 * value)``; the three
    arrays share one floating or complex dtype (the caller promotes them)."""

    value: Any
    save_inputs = (1, 2)
    grad_reads = ((), (2,), (1,))  # input's gradient reads nothing, each tensor's the other's
    grad_fn_name = "AddcmulBackward0"

    def forward(self, xp, x, t1, t2):
        with host_numpy.errstate(over="ignore", invalid="ignore"):
            wide = _widened
            return _narrowed(wide(x) + (_opmath(self.value, x) * wide(t1)) * wide(t2), x)

    def backward(self, xp, g, out, x, t1, t2):
        with host_numpy.errstate(over="ignore", invalid="ignore"):
            v = _opmath(self.value, g)
            return g, _times(g, _times(t2, v, g), g), _times(g, _times(t1, v, g), g)

    def jvp(self, xp, tangents, out, x, t1, t2):
        tx, tt1, tt2 = tangents
        with host_numpy.errstate(over="ignore", invalid="ignore"):
            terms = [tx, None if tt1 is None else _scaled(_times(tt1, t2, out), self.value, out),
                     None if tt2 is None else _scaled(_times(tt2, t1, out), self.value, out)]
            total = None
            for term in terms:  # (PyTorch's left-to-right sum, each rounded)
                if term is not None:
                    total = term if total is None else _narrowed(_widened(total) + _widened(term), out)
        return None if total is None else xp.broadcast_to(total, out.shape)

    def reference(self, np, x, t1, t2):
        return x + self.value * t1 * t2


class Addcdiv(Op):
    """``input + value * tensor1 / tensor2`` (PyTorch's ``AddcdivBackward0``): ``d/dinput = g``,
    ``d/dtensor1 = g * (value / tensor2)``, ``d/dtensor2 = -g * ((value * tensor1) / (tensor2 *
    tensor2))``; the three arrays share one floating or complex dtype (the caller promotes them)."""

    value: Any
    save_inputs = (1, 2)
    #: tensor1's gradient reads tensor2, tensor2's both; input's, ``g``, reads neither, but PyTorch 2.13
    #: refuses a write into tensor2 there too, and so does this (a write it allows, this allows)
    grad_reads = ((2,), (2,), (1, 2))
    grad_fn_name = "AddcdivBackward0"

    def forward(self, xp, x, t1, t2):
        with host_numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
            wide = _widened
            return _narrowed(wide(x) + (_opmath(self.value, x) * wide(t1)) / wide(t2), x)

    def backward(self, xp, g, out, x, t1, t2):
        with host_numpy.errstate(over="ignore", invalid="ignore"):
            # value / tensor2 fills a tensor of tensor2's dtype with value first (float16 rounds it)
            g1 = _times(g, _over(_in_dtype(self.value, t2.dtype), t2, g), g)
            scaled = _times(t1, _opmath(self.value, g), g)
            g2 = _times(-g, _over(scaled, _times(t2, t2, g), g), g)
        return g, g1, g2

    def jvp(self, xp, tangents, out, x, t1, t2):
        tx, tt1, tt2 = tangents
        with host_numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
            total = tx
            if tt1 is not None:
                term = _scaled(_over(tt1, t2, out), self.value, out)
                total = term if total is None else _narrowed(_widened(total) + _widened(term), out)
            if tt2 is not None:
                term = _scaled(_over(_times(tt2, _over(t1, t2, out), out), t2, out), self.value, out)
                total = -term if total is None else _narrowed(_widened(total) - _widened(term), out)
        return None if total is None else xp.broadcast_to(total, out.shape)

    def reference(self, np, x, t1, t2):
        return x + self.value * t1 / t2
