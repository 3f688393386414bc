"""NumPy's and PyTorch's further elementwise functions: ``rsqrt`` (one op), ``frac``, ``lerp``,
``deg2rad``/``rad2deg``, ``ldexp``, ``copysign``, ``fmax``/``fmin``, ``heaviside``,
``nan_to_num``, ``floor_divide`` (``//``), the tests ``isinf``/``isposinf``/``isneginf``/
``signbit``, ``nextafter``, and PyTorch's names ``logit`` and ``xlogy`` as functions.

Each differentiable one is a composition of the engine's elementwise ops and ``where``
(so its derivative, forward mode and higher orders come from theirs); ``floor_divide`` is
one op (:class:`~minigrad_ckpt.ops.elementwise.FloorDivide`), a step function whose
derivative is 0.  The tests of a float's class have no derivative: they return constants;
``nextafter``'s value is a constant that PyTorch's derivatives are linked to.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..backend import broadcast_refusal, get_default_dtype, host_numpy
from ..ops import elementwise as _ew
from ..ops import interpolation as _interp
from ..tape import apply
from ..tensor import Tensor
from . import complex_numbers as cx
from . import math as mf
from . import special
from .arguments import (
    as_tensor,
    beside_number_in_float32,
    binary,
    in_default_float,
    in_float32_if_half,
    is_half_tensor,
    numbers,
    one_device,
    operand,
    refuse_complex,
    tensor_operands,
)
from .elementwise import refuse_bools, refuse_complex_kernel, unary_function
from .errors import DtypeNotImplemented, WrongTensorKind, refuse_integer_zero_divisor
from .promotion import real_coefficient, result_type
from .return_types import return_type
from .scatter import constant, host

_FLOOR_DIVIDE = _ew.FloorDivide()
_LDEXP = _ew.Ldexp()
_PI = 3.141592653589793


def _pair(name: str, x: Any, y: Any) -> tuple[Tensor, Tensor]:
    """Two operands of ``name`` as tensors on one device; a Python number takes the other's device
    and, where it fits, its dtype (a weak scalar, as in arithmetic); a zero-dim CPU tensor moves
    to the other's device (:func:`one_device`)."""
    if isinstance(y, Tensor) and not isinstance(x, Tensor):
        b, a = _pair(name, y, x)
        return a, b
    x = as_tensor(x)
    y = operand(y, x)
    if not isinstance(y, Tensor):
        fits = x.dtype.kind in "fc" or host_numpy.asarray(y).dtype.kind in "iub"
        y = Tensor._from_data(y, dtype=x.dtype if fits else None, device=x.device)
    return one_device(name, x, y)


rsqrt = unary_function("rsqrt", _ew.Rsqrt(), """``1 / sqrt(x)`` (PyTorch's ``rsqrt``): one op,
:class:`~minigrad_ckpt.ops.elementwise.Rsqrt`, whose gradient is PyTorch's ``(-0.5 * g) * r**3``.""")


def frac(x: Any) -> Tensor:
    """The fractional part, ``x - trunc(x)``, with ``x``'s sign (PyTorch's ``frac``); gradient 1."""
    refuse_complex("frac", x)  # truncation rounds towards 0 along the real line
    x = as_tensor(x)
    return x - mf.trunc(x)


def lerp(input: Any, end: Any, weight: Any) -> Tensor:  # noqa: A002
    """``input + weight * (end - input)``, computed from the nearer end (``end - (end - input)
    * (1 - weight)`` for ``|weight| >= 0.5``) so that ``weight = 1`` gives ``end`` exactly, as
    ``torch.lerp``; differentiable in all three (:mod:`~minigrad_ckpt.ops.interpolation`).  A
    complex weight picks the end by ``|weight|``, as PyTorch's."""
    start = as_tensor(input)
    end = as_tensor(end, start)
    one_kernel = start.dtype == end.dtype and start.dtype.kind in "fc"
    if isinstance(weight, Tensor) and weight.ndim == 0 and weight.dtype != start.dtype:
        if not (one_kernel and _a_weight_the_kernel_takes(weight, start)):
            weight = weight.item()  # (an integer or bool 0-d weight: a number, as PyTorch's)
    if not isinstance(weight, Tensor):
        weight = operand(real_coefficient("lerp", weight, start, end), start)
        if isinstance(weight, bool):
            weight = int(weight)
        if one_kernel:
            return apply(_interp.Lerp(weight=weight), start, end)
        return mf.where(abs(weight) >= 0.5, end - (end - start) * (1 - weight), start + (end - start) * weight)
    if one_kernel and (weight.dtype == start.dtype or weight.ndim == 0):
        return apply(_interp.LerpByTensor(), start, end, weight)
    diff = end - start  # (dtypes PyTorch refuses to mix, which mg.lerp's internal callers may: promoted)
    return mf.where(mf.abs(weight) >= 0.5, end - diff * (1 - weight), start + diff * weight)


def _a_weight_the_kernel_takes(weight: Tensor, start: Tensor) -> bool:
    """Whether PyTorch's kernel takes the 0-d ``weight`` of another dtype as a tensor (a floating
    one, complex only beside complex tensors), so that it keeps its own dtype and its gradient:
    :class:`~minigrad_ckpt.ops.interpolation.LerpByTensor` reads it as PyTorch does.  (Taken as a
    number, a real weight beside complex tensors lost its gradient, and a weight of another
    precision was rounded before ``1 - weight``, where PyTorch rounds after.)"""
    return weight.dtype.kind == "f" or weight.dtype.kind == "c" == start.dtype.kind


@in_float32_if_half  # pi / 180 rounded to float16 first put a fifth of the values a unit off
def deg2rad(x: Any) -> Tensor:
    """Degrees to radians: ``x * pi / 180``."""
    return in_default_float(x) * (_PI / 180.0)


@in_float32_if_half
def rad2deg(x: Any) -> Tensor:
    """Radians to degrees: ``x * 180 / pi``."""
    return in_default_float(x) * (180.0 / _PI)


def ldexp(x: Any, other: Any) -> Tensor:
    """``x * 2 ** other`` (NumPy's and PyTorch's ``ldexp``), differentiable in both.  A real ``x`` to an
    integer exponent is rounded once (:class:`~minigrad_ckpt.ops.elementwise.Ldexp`, PyTorch's kernel):
    ``ldexp(0.0, 2000)`` is 0 and ``ldexp(1e-310, 2000)`` finite; a float exponent is ``x * exp2(other)``,
    as PyTorch's (NaN and inf there).  A bool exponent counts 0 or 1 beside an integer, bool or complex
    ``x`` (PyTorch multiplies a complex one by ``2**e``); beside a real floating one PyTorch has no
    kernel for it."""
    x = as_tensor(x)
    floating_x = x.dtype.kind == "f"
    if x.dtype.kind in "biu" and isinstance(other, Tensor) and other.dtype.kind in "fc":
        x = mf.astype(x, result_type(x, other))  # PyTorch's promotion: int x beside a float16 exponent is float16
    x = in_default_float(x)  # else an integer x in the default float dtype, as PyTorch's (NumPy: float64)
    e = operand(other, x)
    if isinstance(e, Tensor) and e.dtype.kind == "b":
        if floating_x:
            raise DtypeNotImplemented("\"ldexp_cpu_exp\" not implemented for 'Bool' (PyTorch's ldexp takes no bool "
                                      "exponent beside a floating x)")
        e = mf.astype(e, "int64")
    if x.dtype.kind == "f" and isinstance(e, Tensor) and e.dtype.kind in "iu":
        return apply(_LDEXP, *one_device("ldexp", x, e))
    if isinstance(e, Tensor) and e.dtype.kind in "iu":  # (a complex x: no kernel rounds it once)
        e = mf.astype(e, x.dtype)  # an integer exponent keeps x's precision (complex64 stays complex64)
    elif isinstance(e, Tensor) and e.ndim == 0 and e.dtype != x.dtype and not (
            x.dtype == host_numpy.float32 and e.dtype == host_numpy.float16):
        # PyTorch takes a 0-d exponent's power in the wider of its dtype and x's, and rounds the product
        # to the result's once: ldexp(float64 x, float32 0-d -0.5) is x * 2 ** -0.5 in float64, not x
        # times float32's 2 ** -0.5, and ldexp(float16 x, float32 0-d e) rounds x * 2 ** e (float32) to
        # float16.  Beside a float32 x a float16 one keeps its own precision (torch 2.13's answers)
        return mf.astype(x * mf.exp2(mf.astype(e, host_numpy.promote_types(x.dtype, e.dtype))), result_type(x, e))
    return x * mf.exp2(e)


class FrexpResult(NamedTuple):
    """``mg.frexp``'s answer, as ``torch.return_types.frexp``."""

    mantissa: Tensor
    exponent: Tensor


_frexp = return_type(FrexpResult, "frexp")  # torch.return_types' class of the answer


def frexp(input: Any) -> FrexpResult:  # noqa: A002
    """``(mantissa, exponent)`` with ``input == mantissa * 2 ** exponent`` and ``0.5 <= |mantissa| < 1``
    (0, inf and NaN keep their value with exponent 0), as NumPy's and PyTorch's ``frexp``: the
    mantissa in ``input``'s float dtype, the exponent int32; only float tensors are accepted.
    The mantissa is differentiable, with PyTorch's gradient ``2 ** -exponent``; the exponent is not."""
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise WrongTensorKind(f"frexp: only supports floating-point dtypes, got {x.dtype}")  # (PyTorch's RuntimeError)
    xp = x.device.xp
    exponent = xp.frexp(x._data)[1].astype(xp.int32)
    # mantissa = x * 2 ** -exponent, the power in two halves: 2 ** 148 (a float32 subnormal's)
    # or 2 ** -128 (its largest float's) alone would overflow the dtype, each half cannot
    half = -(exponent // 2)
    scales = [constant(xp.exp2((-exponent - half).astype(x.dtype)), x), constant(xp.exp2(half.astype(x.dtype)), x)]
    return _frexp(x * scales[0] * scales[1], Tensor.constant(exponent, x.device))


def _signbit_of(y: Any, like: Tensor) -> Tensor:
    if isinstance(y, Tensor):
        return signbit(y)
    return constant(host_numpy.signbit(host_numpy.asarray(y)), like)


def copysign(x: Any, other: Any) -> Tensor:
    """``|x|`` with the sign bit of ``other`` (``-0.0`` counts as negative), as NumPy's and
    PyTorch's ``copysign``; the gradient is ``±sign(x)`` in ``x`` (0 at 0) and 0 in ``other``."""
    refuse_complex("copysign", x, other)  # a sign bit is a real number's
    x = as_tensor(x)
    dtype = result_type(x, other)  # PyTorch's: promoted, and integers in the default float dtype
    if dtype.kind != "f":
        dtype = get_default_dtype()
    if x.dtype != dtype:
        x = mf.astype(x, dtype)
    magnitude = mf.abs(x)
    out = mf.where(_signbit_of(other, x), -magnitude, magnitude)
    # PyTorch's other gets a gradient, zeros (an optimizer steps a zero gradient, not a missing one)
    return out + zero_link(other, dtype) if _floating(other) else out


def _floating(t: Any) -> bool:
    return isinstance(t, Tensor) and t.dtype.kind == "f"


def zero_link(t: Tensor, dtype: Any) -> Tensor:
    """``-0.0`` everywhere, with the derivative 0 in ``t``: added to a result, it connects ``t``
    to it without changing a value (``v + -0.0`` is ``v``, ``-0.0`` and NaN included).
    ``t``'s gradient is zeros whatever arrives -- an infinite or NaN gradient too, as PyTorch's
    ``zeros_like(grad)`` for ``copysign``'s sign operand (a product with 0 made it NaN)."""
    zeros = apply(_ew.KeepConnected(), Tensor.constant(t.device.xp.zeros_like(t._data), t.device), t)
    return mf.astype(-zeros, dtype)


def _identity_link(t: Tensor, mask: Tensor, dtype: Any) -> Tensor:
    """``-0.0`` everywhere, with the derivative 1 in ``t`` where ``mask`` (and ``t`` is finite), 0
    elsewhere: added to a constant result, it gives the result ``t``'s gradient there."""
    finite = mf.isfinite(t)
    t = mf.where(finite, t, 0.0)  # inf - inf would be NaN (and NumPy's warning) in the branch not taken
    return mf.astype(mf.where(mf.logical_and(mask, finite), -(t.detach() - t), -0.0), dtype)


def _nan_ignoring(name: str, first_wins: Any) -> Any:
    def fn(x: Any, y: Any) -> Tensor:
        refuse_complex(name, x, y)
        x, y = _pair(name, x, y)
        keep_x = first_wins(x.detach(), y.detach())
        if y.dtype.kind in "fc":
            keep_x = mf.logical_or(keep_x, mf.isnan(y.detach()))
        return mf.where(keep_x, x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The elementwise {'maximum' if name == 'fmax' else 'minimum'}, ignoring NaNs: where one "
                  f"of the two is NaN the other is taken (NaN only where both are), as NumPy's and "
                  f"PyTorch's ``{name}``; the gradient goes to the element taken (the first at a tie, as "
                  f"PyTorch's).")
    return fn


fmax = _nan_ignoring("fmax", mf.greater_equal)
fmin = _nan_ignoring("fmin", mf.less_equal)


def heaviside(x: Any, values: Any, *, nan_is_nan: bool = True) -> Tensor:
    """The step function: 0 for ``x < 0``, ``values`` where ``x == 0``, 1 for ``x > 0`` --
    NumPy's ``heaviside``, NaN at NaN (PyTorch's ``x.heaviside(values)`` gives 0 there);
    differentiable in ``values`` only."""
    refuse_complex("heaviside", x, values)
    x, v = _pair("heaviside", x, values)
    step = mf.astype(mf.greater(x, 0), v.dtype if v.dtype.kind == "f" else x.dtype)
    out = mf.where(mf.equal(x, 0), v, step)
    return mf.where(mf.isnan(x), x, out) if nan_is_nan and x.dtype.kind == "f" else out


def nan_to_num(x: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """``x`` with NaN replaced by ``nan`` and ±inf by ``posinf``/``neginf`` (by default the
    dtype's largest and lowest finite values), as NumPy's and PyTorch's ``nan_to_num``; the
    gradient is 1 where ``x`` was finite and 0 where it was replaced."""
    nan, posinf, neginf = numbers("nan_to_num", "float", nan=nan, posinf=posinf, neginf=neginf)
    x = as_tensor(x)
    if x.dtype.kind not in "fc":
        return mf.clone(x)
    if x.dtype.kind == "c":
        return cx.complex(nan_to_num(cx.real(x), nan, posinf, neginf), nan_to_num(cx.imag(x), nan, posinf, neginf))
    info = host_numpy.finfo(x.dtype)
    hi = float(info.max) if posinf is None else _rounded_to(posinf, x.dtype)
    lo = float(info.min) if neginf is None else _rounded_to(neginf, x.dtype)
    out = mf.where(mf.isnan(x), _rounded_to(nan, x.dtype), x)
    return mf.where(isposinf(x), hi, mf.where(isneginf(x), lo, out))


def _rounded_to(value: Any, dtype: Any) -> float:
    """A replacement value of ``nan_to_num`` rounded to the tensor's dtype, beyond its range to
    +-inf, as PyTorch's (``nan_to_num(half, posinf=1e6)`` writes inf): ``where`` would refuse
    a number its dtype cannot hold, as PyTorch's ``where`` does."""
    with host_numpy.errstate(over="ignore"):
        return float(host_numpy.asarray(float(value)).astype(dtype))


def floor_divide(x: Any, y: Any) -> Tensor:
    """``floor(x / y)`` as NumPy's ``floor_divide`` and PyTorch's (``x // y``): the ``q`` of
    ``x = q * y + mod(x, y)``, so ``1.0 // 0.1`` is 9.  Integer inputs stay integers (dividing
    by zero is an error, as in PyTorch).  Its derivative is 0 (a step function)."""
    if isinstance(y, host_numpy.ndarray) or isinstance(x, host_numpy.ndarray):
        x, y = tensor_operands(x, y)  # (an array operand: the tensor it stands for)
    if is_half_tensor(x):  # a number beside it: in float32
        return beside_number_in_float32(_floor_quotient, x, y)
    return _floor_quotient(x, y)


def _floor_quotient(x: Any, y: Any) -> Tensor:
    refuse_bools("div_floor_cpu", x, y)  # (a bool tensor by a Python int divides as integers, as PyTorch's)
    refuse_complex_kernel("div_floor_cpu", x, y)
    if result_type(x, y).kind in "iu":
        refuse_integer_zero_divisor("floor_divide", y)
    return binary(_FLOOR_DIVIDE, x, y)


def isinf(x: Any) -> Tensor:
    """Where ``x`` is +inf or -inf (bool; no derivative)."""
    x = as_tensor(x)
    return constant(x.device.xp.isinf(x._data), x)


def isposinf(x: Any) -> Tensor:
    """Where ``x`` is +inf (bool; no derivative)."""
    refuse_complex("isposinf", x)
    x = as_tensor(x)
    return mf.logical_and(isinf(x), mf.greater(x.detach(), 0))


def isneginf(x: Any) -> Tensor:
    """Where ``x`` is -inf (bool; no derivative)."""
    refuse_complex("isneginf", x)
    x = as_tensor(x)
    return mf.logical_and(isinf(x), mf.less(x.detach(), 0))


def signbit(x: Any) -> Tensor:
    """Where ``x``'s sign bit is set: negative numbers, ``-0.0`` and negative NaNs (bool;
    no derivative).  Read on the host: the sign bit is a bit, not a comparison.  A complex number has
    two, and PyTorch refuses it."""
    x = as_tensor(x)
    if x.dtype.kind == "c":
        raise DtypeNotImplemented("signbit is not implemented for complex tensors (read x.real or x.imag)")
    return constant(host_numpy.signbit(host(x)), x)


def nextafter(x: Any, other: Any) -> Tensor:
    """The next representable float after ``x`` towards ``other``, elementwise (NumPy's and
    PyTorch's ``nextafter``).  Computed on the host, bit by bit.  PyTorch's derivative: 1 in
    ``x`` where ``x != other`` (0 where they are equal and the result is ``other``), 0 in
    ``other``.  Two integral operands step in the default float dtype, as the other float-valued
    functions of two (``hypot``, ``arctan2``); PyTorch's kernel refuses them."""
    refuse_complex_kernel("nextafter_cpu", x, other)
    a, b = _pair("nextafter", x, other)
    dtype = result_type(a, b)  # PyTorch's promotion: float32 beside int64 or a 0-d float64 steps in float32
    if dtype.kind in "biu":  # NumPy's loop would step int64 in float64 and bool or uint8 in float16
        dtype = get_default_dtype()
    ha, hb = host(a).astype(dtype), host(b).astype(dtype)
    with broadcast_refusal(ha, hb):
        # C's nextafter is other where the two are equal (nextafter(-0.0, 0.0) is 0.0); NumPy's float16
        # loop answers x there
        out = constant(host_numpy.where(ha == hb, hb, host_numpy.nextafter(ha, hb)), a)
    if _floating(a):
        out = out + _identity_link(a, mf.not_equal(a.detach(), b.detach()), dtype)
    return out + zero_link(b, dtype) if _floating(b) else out


def logit(x: Any, eps: float | None = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` if ``eps`` is given
    (PyTorch's ``logit``; :func:`mg.special.logit`)."""
    return special.logit(x, eps)


def xlogy(x: Any, y: Any) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0`` (also at ``y == 0``) -- PyTorch's ``xlogy``
    (:func:`mg.special.xlogy`)."""
    return special.xlogy(x, y)


def reflected(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return fn(other, self)
    method.__name__ = fn.__name__
    return method
