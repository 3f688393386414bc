"""NumPy objects of every kind ``default_convert`` and ``default_collate`` meet -- ``ndarray`` and
the subclasses NumPy ships (``memmap`` and ``matrix`` in its top-level module; ``MaskedArray`` and
``recarray`` in submodules), and scalars -- shared by ``make_torch_default_convert_kinds.py`` (which
records PyTorch's answers) and ``tests/test_data_convert_kinds.py``; ``describe`` says what came
back in words both libraries share."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def cases(folder: str | None = None) -> dict[str, Any]:
    """name -> a NumPy object (the memmap's file goes in ``folder``, a fresh temporary one if None)."""
    where = Path(folder or tempfile.mkdtemp())
    memmap = np.memmap(where / "memmap.bin", dtype=np.float32, mode="w+", shape=(2,))
    memmap[:] = [1.0, 2.0]
    return {
        "ndarray": np.array([1.0, 2.0]),
        "int32_array": np.array([1, 2], dtype=np.int32),
        "memmap": memmap,
        "matrix": np.matrix([[1.0, 2.0]]),
        "masked_array": np.ma.array([1.0, 2.0], mask=[False, True]),
        "recarray": np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")]).view(np.recarray),
        "plain_recarray": np.arange(3.0).view(np.recarray),
        "float32_scalar": np.float32(1.5),
        "str_array": np.array(["a", "b"]),
    }


def describe(out: Any) -> list[Any]:
    """``["tensor", shape]`` for a tensor of either library, else ``[type name, shape]``."""
    shape = [int(n) for n in out.shape] if hasattr(out, "shape") else None
    is_tensor = type(out).__name__ in ("Tensor", "Parameter") and not isinstance(out, np.ndarray)
    return ["tensor" if is_tensor else type(out).__name__, shape]
