"""Elementwise math: ``mg.add``, ``mg.exp``, ``mg.where``, ``mg.arctan2``, ...

Each function runs one op of :mod:`minigrad_ckpt.ops.elementwise`; binary
functions broadcast their operands (NumPy's rules) and take Python numbers
as weak scalars (see :mod:`~minigrad_ckpt.functional.arguments`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..backend import checked_int, fill_scalar, host_numpy, refuse_alpha, scalar_type_name, wrapped_int
from ..ops import complex_numbers as _cx
from ..ops import elementwise as _ew
from ..ops import special as _sp
from ..tape import apply
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from .arguments import (
    as_index,
    as_tensor,
    beside_number_in_float32,
    binary,
    complex_operand,
    float_binary,
    in_default_float,
    in_float32_if_half,
    is_half_tensor,
    is_integral,
    number,
    operand,
    ordered_binary,
    refuse_complex,
    tensor_operands,
)
from .errors import DtypeNotImplemented, RefusedArgument, refuse_integer_zero_divisor
from .promotion import promoted, promoted_pair, result_type

__all__ = [
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "negative", "exp", "log", "log1p",
    "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "erf", "clip", "where", "tan", "sinh", "cosh", "arcsin",
    "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2", "expm1", "hypot",
    "logaddexp", "logaddexp2", "sinc", "square", "reciprocal", "cbrt", "floor", "ceil", "trunc", "round",
    "around", "mod", "remainder", "fmod",
]


_ADD, _SUB, _MUL, _DIV, _POW = _ew.Add(), _ew.Sub(), _ew.Mul(), _ew.Div(), _ew.Pow()
_MAXIMUM, _MINIMUM = _ew.Maximum(), _ew.Minimum()
_NEG, _EXP, _LOG, _LOG1P = _ew.Neg(), _ew.Exp(), _ew.Log(), _ew.Log1p()
_SQRT, _ABS, _SIN, _COS = _ew.Sqrt(), _ew.Abs(), _ew.Sin(), _ew.Cos()
_TANH, _SIGMOID, _ERF = _ew.Tanh(), _ew.Sigmoid(), _sp.Erf()
_CLIP, _WHERE = _ew.Clip(), _ew.Where()
_TAN, _SINH, _COSH = _ew.Tan(), _ew.Sinh(), _ew.Cosh()
_ARCSIN, _ARCCOS, _ARCTAN = _ew.Arcsin(), _ew.Arccos(), _ew.Arctan()
_ARCSINH, _ARCCOSH, _ARCTANH = _ew.Arcsinh(), _ew.Arccosh(), _ew.Arctanh()
_LOG2, _LOG10, _EXP2, _EXPM1 = _ew.Log2(), _ew.Log10(), _ew.Exp2(), _ew.Expm1()
_SINC, _SQUARE, _RECIPROCAL, _CBRT = _ew.Sinc(), _ew.Square(), _ew.Reciprocal(), _ew.Cbrt()
_FLOOR, _CEIL, _TRUNC = _ew.Floor(), _ew.Ceil(), _ew.Trunc()
_ARCTAN2, _HYPOT = _ew.Arctan2(), _ew.Hypot()
_LOGADDEXP, _LOGADDEXP2 = _ew.LogAddExp(), _ew.LogAddExp2()
_MOD, _FMOD = _ew.Mod(), _ew.Fmod()
_FLOOR_DIVIDE = _ew.FloorDivide()
_MUL_IN_FLOAT32, _DIV_IN_FLOAT32 = _ew.MulInFloat32(), _ew.DivInFloat32()


def unary_function(name: str, op: Any, doc: str, *, integer_valued: bool = False) -> Callable[[Any], Tensor]:
    """The public function ``name(x)`` that applies the elementwise ``op`` to ``x`` and does
    nothing else (``exp``, ``sin``, ``floor``, ...): the one-line ``def`` of each, written once.

    A float-valued function (``exp``, ``sqrt``, ...) computes integer and bool input in the
    default float dtype, as PyTorch's (:func:`~.arguments.in_default_float`); the ops keep
    NumPy's promotion (float16 for uint8), which the op battery checks.  ``integer_valued``
    functions (``negative``, ``square``, ``floor``, ...) keep integers integer, as PyTorch's."""
    float_valued = not integer_valued

    def method(x: Any) -> Tensor:
        # a tensor that requires grad is float or complex: two attribute reads on the training
        # path (the dtype's kind costs ~500 instructions per call: per_op 7,308,629 -> 7,341,844)
        if float_valued and (x.__class__ is not Tensor or (not x._requires_grad and x._data.dtype.kind in "biu")):
            x = in_default_float(x)
        return apply(op, x)

    def function(x: Any, out: Any = None) -> Tensor:  # (out positional: NumPy's ufuncs take it so)
        if out is not None:
            return function.write_out(x, out=out)
        if float_valued and (x.__class__ is not Tensor or (not x._requires_grad and x._data.dtype.kind in "biu")):
            x = in_default_float(x)
        return apply(op, x)

    return _with_its_method(function, method, name, doc)


def _with_its_method(function: Any, method: Any, name: str, doc: str) -> Any:
    """``function`` named, taking PyTorch's ``out=`` itself, and ``method`` (the same without it: Tensor's
    methods take no ``out=``, as PyTorch's) as its ``as_method``.  ``function.write_out`` answers a call
    with ``out=``: until the table of public names sets it (``out_arguments.with_out`` around the function
    called without ``out``, under the rule its row declares), a refusal, as for a keyword it does not take.  (Two
    bodies, not a wrapper: one taking ``out=`` around the function cost ~1,500 instructions a call,
    per_op 7,566,928 -> 7,670,387; and ``out`` positional, as NumPy's ufuncs take it, where a keyword-only
    default is filled from a dict at each call: 7,589,392 with one.)"""
    for f in (function, method):
        f.__name__ = f.__qualname__ = name
        f.__doc__ = doc

    def refused(*args: Any, out: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{name}() got an unexpected keyword argument 'out'")

    function.write_out, function.as_method = refused, method
    return function


def binary_function(name: str, op: Any, doc: str, *, integer_valued: bool = False) -> Callable[[Any, Any], Tensor]:
    """The public function ``name(x1, x2)`` that applies the elementwise ``op`` to the two
    operands broadcast together (:func:`~minigrad_ckpt.functional.arguments.binary`), and
    does nothing else (``hypot``, ``logaddexp``, ``fmod``, ...).  A float-valued one computes
    two integral operands in the default float dtype, as PyTorch's
    (:func:`~.arguments.float_binary`); ``integer_valued`` ones (``fmod``) keep them."""
    combine = binary if integer_valued else float_binary

    def method(x1: Any, x2: Any) -> Tensor:
        return combine(op, x1, x2)

    def function(x1: Any, x2: Any, out: Any = None) -> Tensor:
        if out is not None:
            return function.write_out(x1, x2, out=out)
        return combine(op, x1, x2)

    return _with_its_method(function, method, name, doc)


# Arithmetic
def add(x: Any, y: Any, *, alpha: Any = 1) -> Tensor:
    """``x + y`` with broadcasting; PyTorch's ``alpha`` scales ``y`` (``x + alpha * y``), the sum
    in ``x`` and ``y``'s dtype, as PyTorch's (``alpha * y`` of a bool ``y`` is no int64 sum)."""
    if alpha.__class__ is int and alpha == 1:  # the common call: nothing to read or check
        return binary(_ADD, x, y)
    return _alpha_sum("add", _ADD, x, y, alpha)


def subtract(x: Any, y: Any, *, alpha: Any = 1) -> Tensor:
    """``x - y`` with broadcasting; PyTorch's ``alpha`` scales ``y`` (``x - alpha * y``).  A bool
    operand (a tensor or ``True``) is PyTorch's error: ``mask - 1`` is no arithmetic on masks."""
    refuse_bool_subtraction(x, y)
    if alpha.__class__ is int and alpha == 1:
        return binary(_SUB, x, y)
    return _alpha_sum("sub", _SUB, x, y, alpha)


def _alpha_sum(name: str, op: Any, x: Any, y: Any, alpha: Any) -> Tensor:
    """``add``'s or ``sub``'s ``x + alpha * y`` with an ``alpha`` other than the int 1: read as PyTorch reads
    its Scalar (:func:`~minigrad_ckpt.functional.arguments.number`: a tensor that requires grad is its
    TypeError, where it was multiplied in -- or read as a number, its gradient lost -- before), then checked
    against the sum's dtype (True is PyTorch's bool alpha: :func:`_alpha_operands` checks it)."""
    alpha = number(name, "alpha", alpha)
    if alpha == 1 and alpha is not True:
        _refuse_alpha_of_one(x, y, alpha)
        return binary(op, x, y)
    return _in_sum_dtype(binary(op, *_alpha_operands(x, y, alpha)), x, y)


def _in_sum_dtype(out: Tensor, x: Any, y: Any) -> Tensor:
    """``x + alpha * y`` (or ``-``) in the dtype of ``x + y``: a bool ``y`` scaled by an int is no
    int64 sum, and a float16 one, computed in float32 (:func:`_alpha_operands`), is rounded once here."""
    dtype = result_type(as_tensor(x), y)
    return out if out.dtype == dtype else out.to(dtype)


def refuse_bool_subtraction(x: Any, y: Any) -> None:
    """PyTorch's refusal of ``x - y`` with a bool operand (a tensor or ``True``), in its words, which
    differ for two bool operands (``mask - mask``: use ``^``) and one (``1 - mask``: use ``~``)."""
    if _is_bool(x) and _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(x) or _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _is_bool(v: Any) -> bool:
    """Whether ``v`` is a bool tensor or a bool (Python's or NumPy's)."""
    return v.dtype.kind == "b" if isinstance(v, Tensor) else isinstance(v, (bool, host_numpy.bool_))


def _refuse_alpha_of_one(x: Any, y: Any, alpha: Any) -> None:
    """PyTorch's checks of an ``alpha`` equal to 1 that is no int (``1.0`` beside integers, ``1+0j`` beside
    real numbers are its errors, as ``2.0`` and ``2j`` are): it reads the alpha's type, not its value."""
    if isinstance(alpha, Tensor):
        return
    refuse_alpha(alpha, result_type(as_tensor(x), y))


def _alpha_operands(x: Any, y: Any, alpha: Any) -> tuple[Any, Tensor]:
    """``x`` and ``alpha * y`` for ``add``/``sub``: a float ``alpha`` beside two integral operands is PyTorch's
    error (the sum is an integer; NumPy's promotion would answer a float tensor silently), and so
    is a complex ``alpha`` beside two real ones (``add`` would cut the sum to its real part, ``sub``
    turn it complex).  A float16 sum is PyTorch's half kernel's: ``alpha`` (and a number ``y``) rounded
    to float16, then ``x + alpha * y`` in float32, rounded once by :func:`_in_sum_dtype` -- ``alpha * y``
    rounded to float16 first was up to 998 units in the last place off where the sum cancels
    (``sub(a, b, alpha=7.3)``).  (PyTorch's vectorized loop; the scalar loop of its last few elements,
    fewer than a vector's 32, rounds the product first.)"""
    inexact = isinstance(alpha, (float, complex, host_numpy.inexact)) or (
        isinstance(alpha, Tensor) and alpha.dtype.kind in "fc")
    if inexact and is_integral(x) and is_integral(y):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    complex_alpha = isinstance(alpha, (complex, host_numpy.complexfloating)) or (
        isinstance(alpha, Tensor) and alpha.dtype.kind == "c")
    dtype = result_type(as_tensor(x), y)
    if complex_alpha and dtype.kind != "c":  # (the sum would drop it, or turn complex)
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    refuse_alpha(alpha, dtype)
    if not isinstance(alpha, Tensor):  # an alpha the dtype cannot hold is PyTorch's error, not a wrapped int or inf
        alpha = fill_scalar("add", alpha, dtype)
    y = in_dtype(y, dtype, x)
    if dtype == host_numpy.float16 and not isinstance(alpha, Tensor):
        wide = host_numpy.dtype(host_numpy.float32)
        return in_dtype(x, wide, y), multiply(y.float(), float(host_numpy.float16(alpha)))
    return x, multiply(y, alpha)


def in_dtype(v: Any, dtype: Any, like: Any) -> Tensor:
    """``v`` (a tensor or a number) in ``dtype``, where PyTorch scales an operand: ``alpha * y``
    is computed in the dtype of the whole sum, so a uint8 ``y`` of 200 times 2 is 400 beside a float
    ``x`` (in uint8 it wraps to 144), and a number is rounded (an int wrapped) into that dtype first
    (``float64 + 1e40 * 2`` is 2e40, not the float32 number's inf)."""
    if isinstance(v, Tensor):
        return v if v.dtype == dtype else v.to(dtype)
    if dtype.kind in "iu" and isinstance(v, int) and not isinstance(v, bool):
        v = wrapped_int(v, dtype)
    with host_numpy.errstate(over="ignore"):  # (a number beyond float32 is its inf, as PyTorch's)
        return as_tensor(host_numpy.asarray(v, dtype=dtype), like if isinstance(like, Tensor) else None)


def multiply(x: Any, y: Any) -> Tensor:
    """``x * y`` with broadcasting; a float16 tensor times a number in float32, rounded once, as
    PyTorch's (:func:`~.arguments.beside_number_in_float32`)."""
    if is_half_tensor(x):  # (only a first float16 operand is computed otherwise)
        return beside_number_in_float32(_product, x, y, _MUL_IN_FLOAT32)
    return binary(_MUL, x, y)


def _product(x: Any, y: Any) -> Tensor:
    return binary(_MUL, x, y)


def _integer_quotient(x: Any, y: Any, rounding_mode: str) -> Tensor:
    """``div(x, y, rounding_mode=)`` of integers as PyTorch's: computed in integers (a float
    quotient would round large ones), the result integer (no gradient), a zero divisor a
    ZeroDivisionError instead of NumPy's 0 with a warning."""
    like = x if isinstance(x, Tensor) else y if isinstance(y, Tensor) else as_tensor(x)
    refuse_integer_zero_divisor("divide", y)
    # PyTorch's promotion first: int32 // 0-d int64 is int32, uint8 // -3 wraps -3 into uint8
    x, y = promoted_pair(x, y)
    a, b = (v._data if isinstance(v, Tensor) else v for v in (x, y))
    xp = like.device.xp
    q = a // b
    if rounding_mode == "trunc":  # floor, moved up by one where the quotient is negative and inexact
        q = q + ((q * b != a) & ((a < 0) != (b < 0)))
    return Tensor.constant(xp.asarray(q), like.device)


def refuse_bools(kernel: str, x: Any, y: Any) -> None:
    """PyTorch's ``NotImplementedError`` where two bools meet in an arithmetic kernel with no bool
    instance (``"remainder_cpu"``, ``"fmod_cpu"``, ``"div_floor_cpu"``, ``"div_trunc_cpu"``): NumPy's
    answer is an integer (``True % True`` is int8 0, ``True // False`` a division by zero)."""
    if result_type(x, y).kind == "b":
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for 'Bool' (two bool operands)")


def refuse_complex_kernel(kernel: str, x: Any, y: Any, why: str = "complex numbers have no order") -> None:
    """PyTorch's ``NotImplementedError`` where a complex operand meets a kernel with no complex instance
    (``"div_floor_cpu"``, ``"remainder_cpu"``, ``"fmod_cpu"``, ``"atan2_cpu"``, ``"hypot_cpu"``): NumPy's
    ``TypeError`` ("ufunc 'fmod' not supported for the input types") named neither the function nor
    the reason."""
    if any(isinstance(v, complex) or (isinstance(v, Tensor) and v._data.dtype.kind == "c") for v in (x, y)):
        dtype = result_type(x, y)
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}' ({why})")


def divide(x: Any, y: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``x / y`` with broadcasting (true division); PyTorch's ``rounding_mode="trunc"`` rounds
    the quotient toward zero, and ``"floor"`` is ``x // y`` (floor division, as PyTorch's: the
    ``q`` of ``x = q * y + mod(x, y)``, so ``div(1.0, 0.1, rounding_mode="floor")`` is 9, not
    ``floor(1.0 / 0.1) = 10``); both gradients are 0; of two integer operands, an integer
    quotient, as PyTorch's."""
    if rounding_mode not in (None, "trunc", "floor"):  # (PyTorch's RuntimeError)
        raise RefusedArgument(f"divide: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")
    if is_half_tensor(x):  # (a number beside it: in float32)
        return beside_number_in_float32(_QUOTIENTS[rounding_mode], x, y,
                                        _DIV_IN_FLOAT32 if rounding_mode is None else None)
    return _QUOTIENTS[rounding_mode](x, y)


def _quotient(x: Any, y: Any) -> Tensor:
    return float_binary(_DIV, x, y)


def _rounded_quotient(x: Any, y: Any, rounding_mode: str) -> Tensor:
    """``div(x, y, rounding_mode=)``, ``"trunc"`` or ``"floor"``."""
    if isinstance(y, host_numpy.ndarray) or isinstance(x, host_numpy.ndarray):
        x, y = tensor_operands(x, y)
    refuse_bools(f"div_{rounding_mode}_cpu", x, y)
    refuse_complex_kernel(f"div_{rounding_mode}_cpu", x, y)
    if is_integral(x) and is_integral(y):
        return _integer_quotient(x, y, rounding_mode)
    if rounding_mode == "trunc":
        return trunc(binary(_DIV, x, y))
    return binary(_FLOOR_DIVIDE, x, y)


_QUOTIENTS: dict[str | None, Callable[[Any, Any], Tensor]] = {
    None: _quotient,
    "trunc": lambda x, y: _rounded_quotient(x, y, "trunc"),
    "floor": lambda x, y: _rounded_quotient(x, y, "floor"),
}


def power(x: Any, y: Any) -> Tensor:
    """``x ** y`` with broadcasting; see :class:`~minigrad_ckpt.ops.elementwise.Pow`.  An integer
    base to a negative integer number is PyTorch's ``RuntimeError`` (no integer holds ``2 ** -1``);
    to a tensor of exponents, PyTorch's integer answer (``2 ** -1`` is 0, :func:`_integer_power`)."""
    if isinstance(x, Tensor) and x.dtype.kind in "biu" and _is_negative_int(y):
        # checked before the exponent is promoted: an unsigned base would wrap -1 to 255 and
        # answer x ** 255 silently (NumPy raises only for a signed exponent, a ValueError)
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if (isinstance(x, Tensor) and x.dtype.kind in "iu" and isinstance(y, (int, host_numpy.integer))
            and not isinstance(y, (bool, host_numpy.bool_))):
        # PyTorch converts the exponent to the base's dtype, checked: int8 ** 300 is an error,
        # where NumPy's int8 ** 300 wraps silently
        y = checked_int("pow", y, x.dtype)
    if isinstance(x, Tensor) and x.dtype.kind == "b" and isinstance(y, (bool, host_numpy.bool_)):
        xp = x.device.xp  # PyTorch's bool ** True is x, ** False all True, both bool (NumPy's are int8)
        return Tensor.constant(x._data.copy() if y else xp.ones(x.shape, dtype=bool), x.device)
    if isinstance(y, Tensor) and y.dtype.kind == "b" and result_type(x, y).kind == "b":
        # a bool tensor of exponents to a bool base: PyTorch has no kernel (NumPy's answer is int8); a
        # bool base to a number, or to an integer tensor, is PyTorch's integer power
        raise DtypeNotImplemented("\"pow\" not implemented for 'Bool' (a bool base to bool exponents)")
    if isinstance(y, Tensor) and y.dtype.kind in "iu" and is_integral(x):
        return _integer_power(x, y)
    return binary(_POW, x, y)


def _integer_power(x: Any, y: Tensor) -> Tensor:
    """``x ** y`` of integers with a tensor of exponents, as PyTorch's: a negative exponent
    gives the integer part of ``1 / x ** -y`` -- 1 for a base of 1, +-1 for -1, else 0 --
    where NumPy raises ``ValueError`` for the whole tensor (no gradient: integers)."""
    x, y = promoted_pair(x, y)
    xp = y.device.xp
    b = x._data if isinstance(x, Tensor) else x
    e = y._data
    negative = e < 0
    if not bool(xp.scalar(xp.any(negative))):
        return binary(_POW, x, y)
    ones = xp.ones_like(e)
    odd = (e % 2) == 1
    below = xp.where(b == 1, ones, xp.where(b == -1, xp.where(odd, -ones, ones), 0 * ones))
    return Tensor.constant(xp.asarray(xp.where(negative, below, b ** xp.where(negative, 0, e)),
                                      dtype=e.dtype), y.device)


def _is_negative_int(y: Any) -> bool:
    """Whether ``y`` is a negative Python (or NumPy) integer, as PyTorch checks a scalar exponent
    (a tensor of exponents it does not check: ``x ** t`` answers 0 for ``3 ** -1`` there)."""
    return isinstance(y, (int, host_numpy.integer)) and not isinstance(y, bool) and y < 0


def maximum(x: Any, y: Any) -> Tensor:
    """Elementwise maximum; ties split the gradient evenly."""
    return ordered_binary("maximum", _MAXIMUM, x, y)


def minimum(x: Any, y: Any) -> Tensor:
    """Elementwise minimum; ties split the gradient evenly."""
    return ordered_binary("minimum", _MINIMUM, x, y)


negative = unary_function("negative", _NEG, "``-x`` elementwise.", integer_valued=True)


def abs(x: Any) -> Tensor:  # noqa: A001 - NumPy's name
    """Absolute value; gradient ``sign(x)`` (0 at 0); of a complex tensor ``|z|``, gradient
    ``z / |z|`` (the op :class:`~minigrad_ckpt.ops.complex_numbers.ComplexAbs`)."""
    if isinstance(x, Tensor) and x._data.dtype.kind == "c":
        return apply(_cx.ComplexAbs(), x)
    return apply(_ABS, x)


# Exponentials, logarithms and powers
exp = unary_function("exp", _EXP, "``e ** x`` elementwise; its gradient is its output.")
log = unary_function("log", _LOG, "Natural log (``-inf`` at 0, NaN below, as NumPy, without warnings).")
log1p = unary_function("log1p", _LOG1P, "``log(1 + x)``, accurate for small ``x``.")
sqrt = unary_function("sqrt", _SQRT, "Square root (NaN below 0); gradient ``1 / (2 sqrt(x))``, infinite at 0.")
log2 = unary_function("log2", _LOG2, "Base-2 logarithm (``-inf`` at 0, NaN below).")
log10 = unary_function("log10", _LOG10, "Base-10 logarithm (``-inf`` at 0, NaN below).")
exp2 = unary_function("exp2", _EXP2, "``2 ** x``.")
expm1 = unary_function("expm1", _EXPM1, "``exp(x) - 1``, accurate for small ``x``.")
_square = unary_function("square", _SQUARE, "``x * x``.", integer_valued=True)


def square(x: Any) -> Tensor:
    """``x * x``; integers stay integer, and a bool tensor squares in int64, as PyTorch's
    (``torch.square`` is ``pow(x, 2)``, whose bool base promotes; NumPy keeps bool)."""
    if isinstance(x, Tensor) and x.dtype.kind == "b":
        x = x.long()
    return _square(x)
reciprocal = unary_function("reciprocal", _RECIPROCAL, "``1 / x`` (``inf`` at 0).")
cbrt = unary_function("cbrt", _CBRT, "The real cube root; the derivative is infinite at 0.")


def sigmoid(x: Any) -> Tensor:
    """``1 / (1 + exp(-x))``, without overflow for real ``x``; a complex ``x`` takes the formula
    as it stands (holomorphic, as PyTorch's: NaN where ``exp(-x)`` overflows)."""
    return apply(_SIGMOID, in_default_float(x))


def erf(x: Any) -> Tensor:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``; of a complex ``x`` too
    (through the Faddeeva function, holomorphic: its derivative is ``2/sqrt(pi) exp(-x^2)``)."""
    return apply(_ERF, in_default_float(x))


def clip(x: Any, a_min: Any = None, a_max: Any = None) -> Tensor:
    """Limit values to ``[a_min, a_max]`` (either may be None, a scalar or a tensor)."""
    x = as_tensor(x)
    refuse_complex("clip", x, a_min, a_max)
    lo = None if a_min is None else _bound(a_min, x)
    hi = None if a_max is None else _bound(a_max, x)
    bounds = [b for b in (lo, hi) if b is not None]
    if any(not isinstance(b, Tensor) or b._data.dtype is not x._data.dtype for b in bounds):
        # PyTorch's dtype: clamp(float32, min=0-d float64) is float32, clamp(int64, min=0.5) float32
        x, *cast = promoted(x, *bounds, wrap=False)
        cast = iter(cast)
        lo = None if lo is None else next(cast)
        hi = None if hi is None else next(cast)
    return apply(_CLIP, x, lo, hi)


def _bound(b: Any, x: Tensor) -> Any:
    """A ``clip`` bound: an int beside an integer tensor by PyTorch's checked conversion (out of
    range an error, -1 beside uint8 is 255), a number beside a float tensor too (``clamp(max=1e300)``
    of float32 is an error, not a bound of inf)."""
    if x.dtype.kind in "iu" and isinstance(b, (int, host_numpy.integer)) and not isinstance(b, bool):
        return checked_int("clamp", b, x.dtype)
    if x.dtype.kind == "f" and not isinstance(b, Tensor):
        fill_scalar("clamp", b, x.dtype)
    return operand(b, x)


def _where_number(v: Any, other: Any) -> Any:
    """A number branch of ``where`` beside a tensor, by PyTorch's checked conversion:
    ``where(c, int8_tensor, 500)`` is an error, not 500 wrapped to -12 (-1 beside uint8 is 255), and
    so is ``where(c, float32_tensor, 1e300)``, not inf."""
    if (isinstance(v, (int, host_numpy.integer)) and not isinstance(v, (bool, host_numpy.bool_))
            and isinstance(other, Tensor) and other.dtype.kind in "iu"):
        return checked_int("where", v, other.dtype)
    if (isinstance(v, (int, float, host_numpy.integer, host_numpy.floating)) and isinstance(other, Tensor)
            and other.dtype.kind in "fc"):  # (a complex number makes the result complex: no check here)
        fill_scalar("where", v, other.dtype)  # a real number beyond a float tensor's dtype: PyTorch's error
    return v


def _warn_uint8_condition() -> None:
    """A uint8 condition tensor is the mask spelling of PyTorch's byte-mask days: still read as
    ``!= 0`` (the answer is PyTorch's), with its deprecation warning, as an indexing mask of uint8 is."""
    warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                  "a future version of PyTorch. Use a boolean condition instead.", UserWarning,
                  stacklevel=stacklevel_outside_the_engine())


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``x`` where ``condition`` is true, else ``y``; with the condition alone, NumPy's and
    PyTorch's ``where(condition)``: the indices where it is true, a tuple of index tensors.

    The gradient of the branch that was not selected is exactly zero at each
    element, and ops with a singular derivative turn a zero upstream gradient
    into a zero gradient -- so ``where(x > 0, sqrt(x), 0)`` has no NaN at 0.
    """
    if x is None and y is None:
        cond = as_tensor(condition)
        xp = cond.device.xp
        found = host_numpy.nonzero(xp.to_host(cond._data).reshape(cond.shape or (1,)))  # 0-d: as 1-D, as PyTorch
        return tuple(Tensor._wrap(xp.asarray(i.astype(host_numpy.int64)), None, cond.device) for i in found)
    if x is None or y is None:
        raise TypeError("where: pass both x and y, or the condition alone")
    if isinstance(condition, Tensor) and condition.dtype == host_numpy.uint8:
        _warn_uint8_condition()
    like = next((v for v in (condition, x, y) if isinstance(v, Tensor)), None)
    cond = as_tensor(condition, like)
    if cond.dtype != host_numpy.bool_:
        cond = cond != 0
    x, y = _where_number(x, y), _where_number(y, x)
    x, y = operand(x, cond), operand(y, cond)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):  # two numbers: PyTorch's dtype, not NumPy's
        x = Tensor._from_data(x, dtype=result_type(x, y), device=cond.device)
    if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype is y._data.dtype):
        x, y = promoted_pair(x, y)  # PyTorch's dtype: where(c, float32, 0-d float64) is float32
    return apply(_WHERE, cond, x, y)


# Trigonometric and hyperbolic functions
sin = unary_function("sin", _SIN, "Sine (radians); gradient ``cos(x)``.")
cos = unary_function("cos", _COS, "Cosine (radians); gradient ``-sin(x)``.")
tan = unary_function("tan", _TAN, "Tangent; poles at ``pi/2 + k pi``.")
arcsin = unary_function("arcsin", _ARCSIN, "Inverse sine on ``[-1, 1]`` (NaN outside); infinite slope at ``+-1``.")
arccos = unary_function("arccos", _ARCCOS, "Inverse cosine on ``[-1, 1]`` (NaN outside); infinite slope at ``+-1``.")
arctan = unary_function("arctan", _ARCTAN, "Inverse tangent; gradient ``1 / (1 + x**2)``.")
sinh = unary_function("sinh", _SINH, "Hyperbolic sine; gradient ``cosh(x)``.")
cosh = unary_function("cosh", _COSH, "Hyperbolic cosine; gradient ``sinh(x)``.")
tanh = unary_function("tanh", _TANH, "Hyperbolic tangent; gradient ``1 - tanh(x)**2`` from the saved output.")
arcsinh = unary_function("arcsinh", _ARCSINH, "Inverse hyperbolic sine; gradient ``1 / sqrt(x**2 + 1)``.")
arccosh = unary_function("arccosh", _ARCCOSH, "Inverse hyperbolic cosine on ``[1, inf)``; infinite slope at 1.")
arctanh = unary_function("arctanh", _ARCTANH, "Inverse hyperbolic tangent on ``(-1, 1)``; ``+-inf`` at ``+-1``.")
sinc = unary_function("sinc", _SINC, "The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (NumPy's ``sinc``).")
_arctan2 = binary_function("arctan2", _ARCTAN2, "The angle of the point ``(x2, x1)``; gradient 0 at the origin.")


def arctan2(x1: Any, x2: Any) -> Tensor:
    """The angle of the point ``(x2, x1)``; gradient 0 at the origin; complex operands are refused, as
    PyTorch's (no angle of two complex numbers)."""
    refuse_complex_kernel("atan2_cpu", x1, x2)
    return _arctan2(x1, x2)


_hypot = binary_function("hypot", _HYPOT, "``sqrt(x1**2 + x2**2)``; gradient 0 at the origin (a kink).")


def hypot(x1: Any, x2: Any) -> Tensor:
    """``sqrt(x1**2 + x2**2)`` without overflow; gradient 0 at the origin (a kink); complex operands are
    refused, as PyTorch's (``abs`` is the length of one complex number)."""
    refuse_complex_kernel("hypot_cpu", x1, x2, "the legs of a right triangle are real; abs(z) is a complex length")
    return _hypot(x1, x2)


def logaddexp(x1: Any, x2: Any) -> Tensor:
    """``log(exp(x1) + exp(x2))`` without overflow; of complex numbers too, as PyTorch's."""
    if complex_operand(x1) or complex_operand(x2):
        return _complex_logaddexp(x1, x2)
    return float_binary(_LOGADDEXP, x1, x2)


def _complex_logaddexp(x1: Any, x2: Any) -> Tensor:
    """PyTorch's complex ``logaddexp``: ``m + log1p(exp(o - m))``, ``m`` the operand of the larger
    real part (so ``exp`` cannot overflow) and ``o`` the other; the same infinity twice is itself.
    The function is holomorphic, so the composition's gradient is its gradient (docs/complex.md).
    The real kernel (NumPy's ``logaddexp`` ufunc) has no complex loop."""
    a, b = promoted_pair(as_tensor(x1, x2 if isinstance(x2, Tensor) else None), x2)
    b = as_tensor(b, a)
    xp = a.device.xp
    larger = Tensor.constant(xp.real(a._data) >= xp.real(b._data), a.device)
    same_infinity = Tensor.constant(xp.logical_and(xp.isinf(a._data), a._data == b._data), a.device)
    m, o = where(larger, a, b), where(larger, b, a)
    finite_m, finite_o = where(same_infinity, 0.0, m), where(same_infinity, 0.0, o)  # (inf - inf is NaN)
    return m + log1p(exp(finite_o - finite_m))


_logaddexp2 = binary_function("logaddexp2", _LOGADDEXP2, "``log2(2**x1 + 2**x2)`` without overflow.")


def logaddexp2(x1: Any, x2: Any) -> Tensor:
    """``log2(2**x1 + 2**x2)`` without overflow; complex operands are refused, as PyTorch's (unlike
    :func:`logaddexp`, it has no complex kernel)."""
    refuse_complex_kernel("logaddexp2_cpu", x1, x2, "logaddexp takes complex numbers")
    return _logaddexp2(x1, x2)


# Rounding and remainders
def _real_rounding(name: str, op: Any, doc: str) -> Callable[[Any], Tensor]:
    """The public rounding function ``name``, as :func:`unary_function`'s ``integer_valued`` one
    (integers stay integers) that refuses a complex ``x`` first: PyTorch's ``NotImplementedError``
    ("floor is not supported for complex inputs") -- NumPy's ``TypeError`` ("ufunc 'floor' not
    supported for the input types") named neither the function nor the reason."""
    def function(x: Any) -> Tensor:
        if complex_operand(x):
            raise DtypeNotImplemented(f"{name} is not supported for complex inputs (round x.real and x.imag)")
        return apply(op, x)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


floor = _real_rounding("floor", _FLOOR, "The largest integer ``<= x``; gradient 0 (a step function).")
ceil = _real_rounding("ceil", _CEIL, "The smallest integer ``>= x``; gradient 0 (a step function).")
trunc = _real_rounding("trunc", _TRUNC, "``x`` rounded towards 0; gradient 0 (a step function).")


def round(x: Any, decimals: int = 0) -> Tensor:  # noqa: A001 - NumPy's name
    """Round half to even to ``decimals`` places (NumPy's ``round``); gradient 0."""
    decimals = as_index(decimals)
    if not isinstance(decimals, (int, host_numpy.integer)) or isinstance(decimals, bool):
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    if decimals:
        return _round_scaled(as_tensor(x), int(decimals))
    return apply(_ew.Round(decimals=0), x)


@in_float32_if_half  # x * 10^decimals overflows float16: round(65504, decimals=2) was inf
def _round_scaled(x: Tensor, decimals: int) -> Tensor:
    return apply(_ew.Round(decimals=decimals), x)


around = round
def _remainder_function(name: str, op: Any, doc: str) -> Callable[[Any, Any], Tensor]:
    """:func:`binary_function` for a remainder: of two integral operands, a zero divisor is
    PyTorch's error (:class:`~.errors.IntegerDivisionByZero`), where NumPy answers 0."""
    plain = binary_function(name, op, doc, integer_valued=True)

    def function(x1: Any, x2: Any) -> Tensor:
        if isinstance(x2, host_numpy.ndarray) or isinstance(x1, host_numpy.ndarray):
            x1, x2 = tensor_operands(x1, x2)
        if is_integral(x1) and is_integral(x2):
            refuse_bools("remainder_cpu" if name == "mod" else "fmod_cpu", x1, x2)
            refuse_integer_zero_divisor(name, x2)
        refuse_complex_kernel("remainder_cpu" if name == "mod" else "fmod_cpu", x1, x2)
        return plain(x1, x2)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = plain.__doc__
    return function


mod = _remainder_function("mod", _MOD, "``x1 mod x2``, the sign of ``x2`` (Python's ``%``); "
                          "``d/dx2 = -floor(x1 / x2)``; an integer modulo zero is an error, as PyTorch's.")
remainder = mod
fmod = _remainder_function("fmod", _FMOD, "``x1 mod x2``, the sign of ``x1`` (C's ``fmod``); "
                           "``d/dx2 = -trunc(x1 / x2)``; an integer modulo zero is an error, as PyTorch's.")
