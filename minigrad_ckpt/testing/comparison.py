"""``assert_close``: PyTorch's ``torch.testing.assert_close`` -- the same pairs, tolerances and
messages -- for tensors, NumPy arrays, Python numbers and the lists, tuples and dicts of them.

Two tensors are close when they have the same shape (and, by default, dtype and device) and
every element satisfies ``|actual - expected| <= atol + rtol * |expected|``: infinities must
match exactly, NaN never matches unless ``equal_nan=True``.  The default ``rtol``/``atol`` come
from the dtype (float32: 1.3e-6 and 1e-5; float64: 1e-7 and 1e-7; integers and bools: exact).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..backend import host_numpy as np
from ..backend import to_host
from ..functional.promotion import promote_types
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["assert_close", "assert_allclose"]

# (rtol, atol) by dtype, as torch.testing's defaults; integer and bool dtypes compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
               "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


# (rtol, atol) by dtype of the deprecated assert_allclose, looser than assert_close's (PyTorch's)
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


class _Mismatch(AssertionError):
    """A failed comparison; ``where`` is the item path inside sequences and mappings."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.message, self.where = message, where


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (see the module's
    docstring); ``TypeError`` for a pair that cannot be compared (a Tensor and a float, a
    Tensor and a NumPy array, two strings, a bool and another number).  ``msg`` replaces the message, or, if callable,
    is given the message and returns the one to raise.  ``allow_subclasses=False`` refuses a pair
    of tensors of different classes (a Parameter and a Tensor).  ``check_layout`` has nothing to check
    (a tensor here is one dense array); ``check_stride`` compares ``x.stride()``."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'atol' if atol is None else 'rtol'}.")
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                   check_dtype=check_dtype, check_stride=check_stride, allow_subclasses=allow_subclasses)
    try:
        _compare(actual, expected, options, "")
    except _Mismatch as failure:
        message = failure.message + (f"\n\nThe failure occurred for item {failure.where}" if failure.where else "")
        if msg is not None:
            message = msg(message) if callable(msg) else msg
        raise AssertionError(message) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """PyTorch's deprecated ``torch.testing.assert_allclose`` (a FutureWarning, as there), which
    older test suites call: numbers and lists become tensors (``expected`` in ``actual``'s dtype),
    dtypes may differ, NaN equals NaN by default, and the default tolerances are its own, looser
    ones (float32: rtol 1e-4, atol 1e-5; float64: 1e-5 and 1e-8; float16: 1e-3 and 1e-3)."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=stacklevel_outside_the_engine())
    from ..creation import tensor

    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(str(t.dtype), (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(r for r, _ in pairs), max(a for _, a in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


def _compare(actual: Any, expected: Any, options: dict, where: str) -> None:
    if actual is None and expected is None:
        return
    if _array_pair(actual, expected, options["allow_subclasses"]):
        return _compare_arrays(actual, expected, options, where)
    if _is_bool(actual) != _is_bool(expected) and _is_number(actual) and _is_number(expected):
        # a bool is no number to PyTorch's pairs (bool(nan) is True: compared as bools, nan "equals" True)
        raise _cannot_compare(actual, expected, where)
    if _is_number(actual) and _is_number(expected):
        return _compare_numbers(actual, expected, options, where)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        return _compare_mappings(actual, expected, options, where)
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, options, f"{where}[{i}]")
        return
    if actual is None or expected is None:  # PyTorch's NonePair: a mismatch, not a pair it cannot compare
        raise _Mismatch(f"None mismatch: {actual} is not {expected}", where)
    raise _cannot_compare(actual, expected, where)


def _cannot_compare(actual: Any, expected: Any, where: str) -> TypeError:
    return TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
                     + (f"\n\nThe failure occurred for item {where}" if where else ""))  # (msg= is not applied)


def _array_pair(actual: Any, expected: Any, allow_subclasses: bool) -> bool:
    """Two tensors, or two NumPy arrays, one's class the other's or a subclass of it (a Parameter
    and a Tensor, an ``np.matrix`` and an array) -- the same class with ``allow_subclasses=False``."""
    if not any(isinstance(actual, kind) and isinstance(expected, kind) for kind in (Tensor, np.ndarray)):
        return False
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    return related and (allow_subclasses or type(actual) is type(expected))


def _is_bool(x: Any) -> bool:
    return isinstance(x, (bool, np.bool_))


def _is_number(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex, np.number, np.bool_))


def _is_sequence(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str)  # bytes are a sequence of ints, as PyTorch's


def _compare_mappings(actual: Mapping, expected: Mapping, options: dict, where: str) -> None:
    if set(actual) != set(expected):
        missing = sorted(set(expected) - set(actual), key=repr)
        extra = sorted(set(actual) - set(expected), key=repr)
        raise _Mismatch(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: {missing}\n"
                        f"Additional keys in the actual mapping: {extra}", where)
    for key in expected:
        _compare(actual[key], expected[key], options, f"{where}[{key!r}]")


def _compare_numbers(actual: Any, expected: Any, options: dict, where: str) -> None:
    # NumPy scalars are the Python numbers they hold, as PyTorch's pairs take them (np.float64(1.0) is 1.0)
    actual, expected = (v.item() if isinstance(v, (np.number, np.bool_)) else v for v in (actual, expected))
    if isinstance(actual, (bool, np.bool_)) or isinstance(expected, (bool, np.bool_)):
        if type(actual) is not type(expected) and options["check_dtype"]:
            raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.", where)
        if bool(actual) != bool(expected):
            raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}", where)
        return
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.", where)
    kind = complex if isinstance(actual, complex) or isinstance(expected, complex) else (
        float if isinstance(actual, float) or isinstance(expected, float) else int)
    rtol, atol = _tolerances(options, {int: "int64", float: "float64", complex: "complex128"}[kind])
    if kind is int:  # in Python's ints, exact at any size (2**70 is no int64), as PyTorch's NumberPair
        close = abs(actual - expected) <= atol + rtol * abs(expected)
    else:
        close = _close(np.asarray(kind(actual)), np.asarray(kind(expected)), rtol, atol, options["equal_nan"]).all()
    if not close:
        raise _Mismatch(_scalar_message(actual, expected, rtol, atol), where)


def _tolerances(options: dict, *dtypes: Any) -> tuple[float, float]:
    if options["rtol"] is not None:
        return options["rtol"], options["atol"]
    pairs = [_TOLERANCES.get(str(np.dtype(d)), (0.0, 0.0)) for d in dtypes]
    return max(r for r, _ in pairs), max(a for _, a in pairs)


def _close(a: Any, e: Any, rtol: float, atol: float, equal_nan: bool) -> Any:
    if a.dtype.kind in "biu" and e.dtype.kind in "biu":
        return a.astype("int64") == e.astype("int64") if rtol == atol == 0 else np.abs(
            a.astype("int64") - e.astype("int64")) <= atol + rtol * np.abs(e.astype("int64"))
    with np.errstate(invalid="ignore", over="ignore"):
        # infinities are close only when equal: |inf - (-inf)| <= rtol * inf would hold
        finite = np.isfinite(a) & np.isfinite(e)
        close = (a == e) | (finite & (np.abs(a - e) <= atol + rtol * np.abs(e)))
    return close | (np.isnan(a) & np.isnan(e)) if equal_nan else close


def _compare_arrays(actual: Any, expected: Any, options: dict, where: str) -> None:
    checks = (("shape", True), ("device", options["check_device"] and isinstance(actual, Tensor)),
              ("dtype", options["check_dtype"]))
    for attribute in (name for name, check in checks if check):
        a, e = getattr(actual, attribute), getattr(expected, attribute)
        if a != e:
            raise _Mismatch(f"The values for attribute '{attribute}' do not match: {a} != {e}.", where)
    if options["check_stride"] and _stride(actual) != _stride(expected):
        raise _Mismatch(f"The values for attribute 'stride()' do not match: {_stride(actual)} != "
                        f"{_stride(expected)}.", where)
    a, e = (to_host(x._data) if isinstance(x, Tensor) else np.asarray(x) for x in (actual, expected))
    rtol, atol = _tolerances(options, a.dtype, e.dtype)
    if a.dtype != e.dtype:  # check_dtype=False: compared in the dtype both promote to, by PyTorch's rules
        common = promote_types(a.dtype, e.dtype)  # (int64 with float32 is float32, NumPy's float64)
        a, e = a.astype(common), e.astype(common)
    matches = _close(a, e, rtol, atol, options["equal_nan"])
    if not matches.all():
        if a.ndim == 0:
            raise _Mismatch(_scalar_message(a.item(), e.item(), rtol, atol), where)
        raise _Mismatch(_array_message(a, e, matches, rtol, atol), where)


def _stride(x: Any) -> tuple[int, ...]:
    """``x.stride()``; a NumPy array's in elements, as the tensor PyTorch makes of it has."""
    return x.stride() if isinstance(x, Tensor) else tuple(s // x.itemsize for s in x.strides)


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    diff = abs(actual - expected)
    relative = float("inf") if expected == 0 else diff / abs(expected)
    return _message("Scalars", f"Expected {expected} but got {actual}.", (diff, None), (relative, None), rtol, atol)


def _array_message(a: Any, e: Any, matches: Any, rtol: float, atol: float) -> str:
    integral = a.dtype.kind in "biu"
    if integral:  # as PyTorch: integers upcast so that the difference cannot overflow
        a, e = a.astype("int64"), e.astype("int64")
    flat = matches.reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.abs(a - e).reshape(-1)
        diff[flat] = 0  # only the mismatches count
        relative = diff / np.abs(e).reshape(-1)
        if integral:  # PyTorch's int64 / int64 is a float32 (the default dtype)
            relative = relative.astype("float32")
        relative[flat] = 0

    def greatest(d: Any) -> tuple[Any, tuple[int, ...]]:
        i = int(np.argmax(d)) if not np.isnan(d).any() else int(np.argmax(np.isnan(d)))
        return d[i].item(), tuple(int(k) for k in np.unravel_index(i, a.shape))

    n, bad = matches.size, int(matches.size - matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    return _message("Tensor-likes", extra, greatest(diff), greatest(relative), rtol, atol)


def _message(what: str, extra: str, absolute: tuple, relative: tuple, rtol: float, atol: float) -> str:
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "", extra]
    for kind, (diff, index), tol in (("absolute", absolute, atol), ("relative", relative, rtol)):
        line = f"{kind.title()} difference: {diff}" if index is None else (
            f"Greatest {kind} difference: {diff} at index {index}")
        lines.append(line if exact else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)
