"""The cases of ``x.view(dtype)`` with another item size, shared by
``make_torch_view_dtype.py`` (torch's answers) and ``tests/test_view_as_dtype_sizes.py``.

Each case is ``(source dtype, shape, a chain of slicing steps, target dtype)``; the source holds
``arange`` values, so its bytes are the same in both engines.
"""

from __future__ import annotations

from typing import Any

CASES = [
    ("float32", [3, 4], [], "int8"),
    ("float32", [3, 4], [], "float64"),
    ("float32", [3, 4], [], "float16"),
    ("float32", [3, 4], [], "bool"),
    ("float32", [3, 4], [], "complex64"),
    ("float32", [3, 4], [], "complex128"),
    ("float32", [3, 4], ["t"], "int8"),
    ("float32", [3, 4], [[None, [0, 3]]], "float64"),
    ("float32", [3, 4], [[None, [1, 3]]], "float64"),
    ("float32", [3, 4], [[None, [2, 4]]], "float64"),
    ("float32", [3, 4], [[None, [1, 4]]], "int16"),
    ("float32", [4, 3], [[None, [0, 2]]], "float64"),
    ("float32", [4, 2], [[[0, 4, 2], None]], "float64"),
    ("float32", [3, 1], [["expand", 3, 4]], "int8"),
    ("float32", [], [], "int8"),
    ("float32", [], [], "int32"),
    ("float64", [2, 3], [], "float32"),
    ("float64", [2, 3], [], "uint8"),
    ("int64", [2, 2], [], "int32"),
    ("int16", [2, 4], [], "int64"),
    ("int16", [2, 6], [], "int64"),
    ("uint8", [2, 8], [], "float64"),
    ("uint8", [2, 8], [[None, [1, 5]]], "int32"),
    ("complex64", [2, 3], [], "float32"),
    ("complex128", [2, 2], [], "int8"),
    ("float16", [2, 4], [], "float32"),
    ("float64", [0, 4], [], "float32"),
]


def apply_steps(x: Any, steps: list) -> Any:
    """``x`` transposed, expanded or sliced as ``steps`` say (the same methods in both engines)."""
    for step in steps:
        if step == "t":
            x = x.t()
        elif step[0] == "expand":
            x = x.expand(*step[1:])
        else:
            x = x[tuple(slice(None) if s is None else slice(*s) for s in step)]
    return x
