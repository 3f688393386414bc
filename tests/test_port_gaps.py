"""PyTorch programs ported by replacing ``torch`` with ``mg`` meet PyTorch's meanings.

Each expected value below was made with torch 2.13 (CPU) by the expression in its comment;
torch is not imported here.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

# --- dtype inference for lists holding NumPy scalars and arrays ---------------------------------
# torch.tensor(data).dtype for each data below (torch gives each NumPy leaf its own dtype and
# promotes by category: a float of any width beats any integer).
NUMPY_LEAF_CASES = [
    ([np.float64(0.1), 1.0], "float64"),
    ([np.float32(0.1), 1.0], "float32"),
    ([np.int32(1), 2], "int64"),
    ([np.int32(1), np.int32(2)], "int32"),
    ([np.bool_(True), False], "bool"),
    ([np.int32(1), 2.0], "float32"),
    ([np.float16(1), 2.0], "float32"),
    ([np.float16(1), 2], "float16"),
    ([[np.float64(1)], [2.0]], "float64"),
    ([np.uint8(1), 2], "int64"),
    ([np.int8(1), np.int16(2)], "int16"),
    ([np.uint8(1), np.int8(1)], "int16"),
    ([np.int64(1), np.float32(1)], "float32"),
    ([np.array([1.0, 2.0]), np.array([1.0, 2.0])], "float64"),
    ([np.array([1.0, 2.0], dtype=np.float32), [1.0, 2.0]], "float32"),
    ([np.complex128(1), 1.0], "complex128"),
    ([np.float32(1), 1j], "complex64"),
    (np.float64(0.1), "float64"),
    (np.float32(0.1), "float32"),
    (np.int32(3), "int32"),
    ([0.1, 1.0], "float32"),
    ([1, 2], "int64"),
]


@pytest.mark.parametrize(("data", "dtype"), NUMPY_LEAF_CASES)
def test_tensor_infers_pytorch_dtype_from_numpy_scalars_in_lists(data, dtype):
    assert str(mg.tensor(data).dtype) == dtype


def test_numpy_float64_in_list_keeps_its_precision():
    t = mg.tensor([np.float64(0.1), 1.0])
    assert t.numpy()[0] == np.float64(0.1)  # not float32(0.1)
