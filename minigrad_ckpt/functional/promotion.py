"""PyTorch's type promotion: the dtype an elementwise function of several operands computes in.

NumPy 2 and PyTorch agree while every operand has the same category (bool < integer <
float < complex) and the same kind of dimensions.  They part in four places, and a
program ported from PyTorch must get PyTorch's answer in each:

- **Categories mix.**  A float tensor beside an integer tensor keeps the float tensor's
  dtype: ``float32 * int64`` is float32 (NumPy widens to float64, since float32 cannot hold
  every int64).
- **A 0-d tensor decides less than a tensor with dimensions.**  ``x * t.sum()`` with a
  float32 ``x`` and a float64 ``t`` is float32, ``uint8 + 0-d int64`` is uint8 (NumPy:
  float64 and int64); the 0-d operand decides only when its category is higher
  (``int64 * 0-d float64`` is float64).
- **A Python float beside an integer or bool tensor is the default float dtype**
  (float32 unless :func:`~minigrad_ckpt.backend.set_default_dtype` changed it; NumPy:
  float64), a Python complex the default complex dtype (complex64 beside float32 or an
  integer tensor).
- **A Python int outside an integer tensor's range wraps into it**, as a C cast does:
  ``uint8 + -3`` adds 253 (NumPy raises ``OverflowError``), in comparisons too (``uint8 < 300``
  compares with 44, as PyTorch's; NumPy compares the exact numbers); a ``clamp`` bound out of
  range is an error, as PyTorch's.

PyTorch's rule (``c10::promoteTypes`` and ``at::native::result_type``): the operands come in
three priorities -- tensors with dimensions, 0-d tensors, Python numbers.  The dtypes of one
priority promote among themselves; a lower priority changes the result only when its
category is higher than the higher priority's.
"""

from __future__ import annotations

from typing import Any

from ..backend import fill_scalar, get_default_dtype, host_numpy, wrapped_int
from ..ops.shape import AsType
from ..tape import apply
from ..tensor import Tensor

__all__ = ["promote_types", "result_type", "promoted", "promoted_pair", "real_coefficient"]

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_BOOL, _INT64 = host_numpy.dtype(bool), host_numpy.dtype(host_numpy.int64)
_COMPLEX = {4: host_numpy.dtype(host_numpy.complex64), 8: host_numpy.dtype(host_numpy.complex128)}


def promote_types(a: Any, b: Any) -> Any:
    """PyTorch's ``promote_types``: NumPy's within one category and for a float with a complex
    dtype; otherwise the higher category's dtype (``int64`` with ``float16`` is float16, where
    NumPy's is float64)."""
    if a == b:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca == cb or ca + cb == 5:  # one category, or float with complex (2 + 3)
        return host_numpy.promote_types(a, b)
    return a if ca > cb else b


def _complex_of(dtype: Any) -> Any:
    return _COMPLEX[8 if dtype.itemsize >= 8 else 4]  # float16's complex is complex64 (NumPy has no complex32)


def _number_dtype(v: Any) -> Any:
    """The dtype PyTorch gives a Python number beside tensors (its "wrapped number")."""
    if isinstance(v, (bool, host_numpy.bool_)):
        return _BOOL
    if isinstance(v, (int, host_numpy.integer)):
        return _INT64
    if isinstance(v, (float, host_numpy.floating)):
        return get_default_dtype()
    if isinstance(v, (complex, host_numpy.complexfloating)):
        return _complex_of(get_default_dtype())
    raise TypeError(f"not a tensor or a number: {type(v).__name__}")


def _combine(higher: Any, lower: Any) -> Any:
    """The result of a higher priority's dtype beside a lower one's (``combine_categories``)."""
    if higher is None or lower is None:
        return lower if higher is None else higher
    ch, cl = _CATEGORY[higher.kind], _CATEGORY[lower.kind]
    if ch == 3 or ch > cl:
        return higher
    if cl == 3:  # a complex below: the complex of a float above, else the complex itself
        return _complex_of(higher) if ch == 2 else lower
    if ch == 2 or (ch == cl and ch == 1):  # same category: the higher priority decides alone
        return higher
    return promote_types(higher, lower)  # bool above anything, or an integer above a float


def result_type(*operands: Any) -> Any:
    """The dtype PyTorch computes ``operands`` (Tensors and Python numbers) in:
    ``torch.result_type`` for any number of operands."""
    dims = zero = number = None
    for v in operands:
        if isinstance(v, Tensor):
            d = v._data.dtype
            if v._data.ndim:
                dims = d if dims is None else promote_types(dims, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = _number_dtype(v)
            number = d if number is None else promote_types(number, d)
    return _combine(dims, _combine(zero, number))


def _cast(v: Any, dtype: Any, wrap: bool = True) -> Any:
    if isinstance(v, Tensor):
        return v if v._data.dtype == dtype else apply(AsType(dtype=dtype.name), v)
    if isinstance(v, host_numpy.generic):  # weak, as a Python number: NumPy's would widen int8 // np.int32(7)
        v = v.item()
    if wrap and dtype.kind in "iu" and isinstance(v, int) and not isinstance(v, bool):
        return wrapped_int(v, dtype)
    return v  # a number stays weak: NumPy computes it in the tensors' dtype


def promoted(*operands: Any, wrap: bool = True) -> tuple:
    """``operands`` cast to their :func:`result_type` (Tensors by a recorded cast, so gradients
    flow back in each operand's own dtype; numbers stay Python numbers, wrapped into an
    integer result's range unless not ``wrap``: ``clamp`` refuses a bound out of range)."""
    dtype = result_type(*operands)
    return tuple(_cast(v, dtype, wrap) for v in operands)


def promoted_pair(x: Any, y: Any) -> tuple[Any, Any]:
    """:func:`promoted` for two operands: what every binary elementwise function calls when
    its operands' dtypes differ (or a Python number may change the result)."""
    dtype = result_type(x, y)
    return _cast(x, dtype), _cast(y, dtype)


def real_coefficient(name: str, value: Any, *tensors: Any) -> Any:
    """A number scaling ``tensors`` (``addcmul``'s ``value``, ``addmm``'s ``alpha`` and ``beta``,
    ``lerp``'s ``weight``) in their dtype, as PyTorch converts it: a complex number beside real
    tensors is an error when its imaginary part would be lost, and its real part when that part
    is 0 (left complex, it would make the result complex, or be cut to its real part silently)."""
    if isinstance(value, (complex, host_numpy.complexfloating)):
        dtype = result_type(*tensors)
        if dtype.kind != "c":
            return fill_scalar(name, value, dtype)
    return value
