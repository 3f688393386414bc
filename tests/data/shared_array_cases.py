"""The cases ``make_torch_shared_arrays.py`` records with PyTorch and ``tests/test_data_shared_arrays.py``
checks: NumPy arrays (and scalars) of dtypes a tensor has not -- datetimes, strings, float128,
records, the other byte order -- given to ``as_tensor``, ``from_numpy`` and ``default_convert`` (what a
DataLoader with ``batch_size=None`` does to each sample), each answer as a dtype name or an error type."""

from __future__ import annotations

from typing import Any

import numpy as np

ARRAYS = {
    "datetime64": lambda: np.array(["2020-01-01"], dtype="datetime64[D]"),
    "timedelta64": lambda: np.array([1], dtype="timedelta64[s]"),
    "longdouble": lambda: np.array([1.5], dtype=np.longdouble),
    "clongdouble": lambda: np.array([1 + 1j], dtype=np.clongdouble),
    "record": lambda: np.array([(1, 2)], dtype=[("a", "i4"), ("b", "i4")]),
    "big_endian_int32": lambda: np.array([1, 2], dtype=">i4"),
    "big_endian_float64": lambda: np.array([1.5], dtype=">f8"),
    "unicode": lambda: np.array(["a"]),
    "object": lambda: np.array([1], dtype=object),
    "float32": lambda: np.array([1.5], dtype=np.float32),
    "longdouble_scalar": lambda: np.longdouble(1.5),
    "datetime64_scalar": lambda: np.datetime64("2020-01-01"),
}


def answer(fn: Any, value: Any) -> str:
    """The result's dtype name (a non-tensor result: its type's name), or ``error: <type name>``."""
    try:
        out = fn(value)
    except Exception as exc:  # noqa: BLE001 -- the error type is the answer
        return f"error: {type(exc).__name__}"
    dtype = getattr(out, "dtype", None)
    return str(dtype).rsplit(".", 1)[-1] if dtype is not None and hasattr(out, "requires_grad") else type(out).__name__
