"""Integer-only arithmetic: ``mg.gcd``, ``mg.lcm``, ``mg.bitwise_left_shift`` (``<<``) and
``mg.bitwise_right_shift`` (``>>``), with PyTorch's meanings.

They are defined on integer tensors only (PyTorch refuses floats and bools) and carry no
gradient, so each computes on the operands' arrays and returns a constant.  The operands are
promoted as PyTorch's (``uint8`` with ``int8`` is ``int16``; a Python int keeps the tensor's
dtype and is wrapped into it, as PyTorch wraps ``uint8_tensor << 257`` to a shift by 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..backend import broadcast_refusal, host_numpy, scalar_type_name
from ..tensor import Tensor
from .arguments import one_device, promoted_operands
from .errors import DtypeNotImplemented

__all__ = ["gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift"]


def _integer_arrays(name: str, x: Any, y: Any, *, bools: bool) -> tuple[Any, Any, Tensor]:
    """The two operands' arrays in their promoted integer dtype, and the tensor whose device the
    result goes to.  A float, complex (or, unless ``bools``, bool) tensor is a TypeError: PyTorch
    has no kernel for them."""
    x, y = promoted_operands(*one_device(name, x, y))
    tensors = [t for t in (x, y) if isinstance(t, Tensor)]
    if not tensors:
        raise TypeError(f"{name}: expected an integer tensor, got {type(x).__name__} and {type(y).__name__}")
    like = tensors[0]
    kinds = "iub" if bools else "iu"
    for t in (x, y):
        if isinstance(t, Tensor) and t.dtype.kind not in kinds:
            raise DtypeNotImplemented(f"\"{name}_cpu\" not implemented for '{scalar_type_name(t.dtype)}': only "
                                      "integer tensors are accepted (cast with .long())")
        if not isinstance(t, (Tensor, int, host_numpy.integer)):
            # (a TypeError to Python; PyTorch's NotImplementedError for ``2.5 << t``, a RuntimeError)
            raise DtypeNotImplemented(f"{name}: only integer tensors are accepted, got {type(t).__name__}")
    dtype = host_numpy.result_type(*(t._data.dtype for t in tensors))
    if dtype.kind == "b":  # bool << bool has no PyTorch kernel; bool << 1 computes in int64
        if len(tensors) == 2 or isinstance(x if x is not like else y, bool):
            raise DtypeNotImplemented(f"\"{name}_cpu\" not implemented for 'Bool': only integer tensors are "
                                      "accepted (cast with .long())")
        dtype = host_numpy.dtype("int64")
    xp = like.device.xp

    def array(t: Any) -> Any:  # a Python int wraps into the dtype (two's complement), as PyTorch's
        if isinstance(t, Tensor):
            return t._data.astype(dtype, copy=False)
        return xp.asarray(host_numpy.asarray(int(t)).astype(host_numpy.int64).astype(dtype))
    return array(x), array(y), like


def _constant(name: str, compute: Callable[[Any, Any, Any], Any], doc: str, *, bools: bool = False
              ) -> Callable[[Any, Any], Tensor]:
    def function(x: Any, y: Any) -> Tensor:
        a, b, like = _integer_arrays(name, x, y, bools=bools)
        with broadcast_refusal(a, b):
            out = compute(like.device.xp, a, b)
        return Tensor.constant(like.device.xp.asarray(out), like.device)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _lcm(xp: Any, a: Any, b: Any) -> Any:
    # PyTorch's |a / gcd * b|: on overflow it wraps the product then takes |.|, where NumPy's
    # |a| / gcd * |b| wraps to another sign (lcm(2**40, 3**20) in int64).  C++ computes an int8 or
    # int16 product in int (32 bits) and narrows after |.|: lcm(127, 2) in int8 is int8(254) = -2
    dtype = a.dtype
    if dtype.kind == "i" and dtype.itemsize < 4:
        a, b = a.astype(host_numpy.int32), b.astype(host_numpy.int32)
    g = xp.gcd(a, b)
    return xp.abs(xp.where(g == 0, 0, a // xp.where(g == 0, 1, g) * b)).astype(dtype, copy=False)


gcd = _constant("gcd", lambda xp, a, b: xp.gcd(a, b),
                "The greatest common divisor of integer tensors, elementwise and broadcast, never negative "
                "(``gcd(0, 0) == 0``), as PyTorch's ``gcd``; floats are a TypeError. Not differentiable.")
lcm = _constant("lcm", _lcm,
                "The least common multiple of integer tensors, elementwise and broadcast, never negative "
                "(0 where either is 0), as PyTorch's ``lcm``; floats are a TypeError. Not differentiable.")
# NumPy's shifts already give PyTorch's answer for a shift past the width or a negative one:
# 0 to the left, the sign bits to the right
bitwise_left_shift = _constant(
    "bitwise_left_shift", lambda xp, a, b: xp.left_shift(a, b),
    "``x << y`` for integer tensors (a Python int on either side), as PyTorch's: a shift past the "
    "width or a negative one gives 0; floats are a TypeError. Not differentiable.", bools=True)
bitwise_right_shift = _constant(
    "bitwise_right_shift", lambda xp, a, b: xp.right_shift(a, b),
    "``x >> y`` for integer tensors (a Python int on either side), arithmetic (sign-filling) as "
    "PyTorch's: a shift past the width or a negative one gives 0 or -1; floats are a TypeError. "
    "Not differentiable.", bools=True)
