"""The cases ``make_torch_data_split_collate.py`` records with PyTorch and
``tests/test_data_split_collate_parity.py`` checks: ``random_split``'s lengths (which lengths are
fractions, the warnings), ``TensorDataset``'s refusals and ``default_collate`` of NumPy arrays mixed
with other samples, each as an answer both libraries can give in words (lengths, dtype names,
values, error type names)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

SPLITS = [(n, lengths) for n in (0, 1, 4, 7, 10) for lengths in (
    [0.5, 0.5], [0.3, 0.3, 0.4], [0.1] * 10, [1.0], [1, 0], [0, 1], [1], [0.5, 0.5000000001],
    [0.25] * 4, [1.0, 0.0], [0.6, 0.6, -0.2], [3, 2], [0.2, 0.8])]

#: default_collate batches of a NumPy array first: PyTorch takes torch.as_tensor of every sample
COLLATE = {"array_then_list": lambda: [np.array([1.0]), [2.0]],
           "int32_array_then_list": lambda: [np.array([1], dtype=np.int32), [2]],
           "float32_array_then_tuple": lambda: [np.array([1.0], dtype=np.float32), (2,)],
           "0d_array_then_float": lambda: [np.array(1), 2.5],
           "array_then_longer_list": lambda: [np.array([1.0]), [2.0, 3.0]],
           "array_then_string": lambda: [np.array([1.0]), "a"]}


def split(data: Any, n: int, lengths: list[Any]) -> list[Any]:
    """``[subset lengths, number of warnings]`` or ``["error", type name]``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            parts = data.random_split(range(n), lengths)
        except Exception as exc:  # noqa: BLE001 -- the error type is the answer
            return ["error", type(exc).__name__]
    return [[len(p) for p in parts], len(caught)]


def collate(data: Any, batch: list[Any]) -> list[Any]:
    """``[dtype name, values]`` or ``["error", type name]``."""
    try:
        out = data.default_collate(batch)
    except Exception as exc:  # noqa: BLE001
        return ["error", type(exc).__name__]
    return [str(out.dtype).rsplit(".", 1)[-1], out.tolist()]


def tensor_dataset(data: Any, lib: Any, case: str) -> list[Any]:
    """The refusal of a TensorDataset of no tensors or of a 0-d one, made and asked its length
    (PyTorch makes one of no tensors and refuses its ``len``): ``["error", type name]``."""
    try:
        len(data.TensorDataset() if case == "none" else data.TensorDataset(lib.tensor(1.0)))
    except Exception as exc:  # noqa: BLE001
        return ["error", type(exc).__name__]
    return ["made"]
