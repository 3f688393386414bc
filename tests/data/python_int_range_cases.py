"""The cases ``make_torch_python_int_range.py`` records with PyTorch and
``tests/test_data_python_int_range.py`` checks: Python ints outside int64's range in data that makes an
integer tensor (``tensor(data)``, and ``default_collate`` of such samples: 64-bit hash ids as labels),
each answer as ``[dtype name, values]`` or ``["error", type name]``."""

from __future__ import annotations

from typing import Any

import numpy as np

BIG = 2**63 + 5

#: (data, dtype name or None) for ``tensor``
TENSORS = {
    "past_int64": ([2**63], None),
    "scalar_past_int64": (2**63, None),
    "below_int64": ([-(2**63) - 1], None),
    "past_uint64": ([2**64], None),
    "with_a_small_int": ([BIG, 1], None),
    "nested": ([[1], [BIG]], None),
    "with_a_bool": ([True, BIG], None),
    "with_a_numpy_int": ([np.int64(1), BIG], None),
    "int64_given": ([BIG], "int64"),
    "uint64_given": ([BIG], "uint64"),
    "float64_given": ([BIG], "float64"),
    "with_a_float": ([BIG, 1.5], None),
    "int64_bounds": ([2**63 - 1, -(2**63)], None),
    # past 64 bits (NumPy holds them as objects) beside a float, or given a floating or bool dtype:
    # each number read as a double
    "past_uint64_with_a_float": ([2**64, 1.0], None),
    "past_uint64_after_a_float": ([1.0, 2**64], None),
    "past_uint64_nested_with_a_float": ([[2**64], [1.5]], None),
    "past_uint64_with_a_bool_and_a_float": ([2**64, True, 1.0], None),
    "below_int64_with_a_float": ([-(2**64), 1.0], None),
    "past_uint64_with_a_numpy_float": ([2**64, np.float64(1)], None),
    "past_uint64_float64_given": ([2**64, 1], "float64"),
    "past_uint64_float32_given": ([2**64], "float32"),
    "past_uint64_bool_given": ([2**64], "bool"),
    "scalar_past_uint64_float64_given": (2**64, "float64"),
    "past_uint64_uint8_given": ([2**64], "uint8"),
    "past_uint64_ints_only": ([2**64, 1], None),
}

#: batches for ``default_collate``
BATCHES = {
    "labels": [BIG, 7],
    "second_label": [7, BIG],
    "tuple_field": [(1, 2**63)],
    "dict_field": [{"id": 2**64}],
    "int64_bounds": [2**63 - 1, -(2**63)],
}


def answer(make: Any, *args: Any) -> list[Any]:
    try:
        out = make(*args)
    except Exception as exc:  # noqa: BLE001 -- the error type is the answer
        return ["error", type(exc).__name__]
    if isinstance(out, dict):
        out = next(iter(out.values()))
    if isinstance(out, list):
        out = out[-1]
    return [str(out.dtype).rsplit(".", 1)[-1], out.tolist()]
