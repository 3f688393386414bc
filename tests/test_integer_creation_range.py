"""Python numbers made into a tensor of an integer dtype are checked as PyTorch checks them:
``mg.tensor([300], dtype=mg.uint8)`` was 44 and ``mg.tensor([3e9], dtype=mg.int32)`` wrapped
(NumPy's cast), where torch 2.13 raises "value cannot be converted to type uint8 without
overflow"; a NaN went in as the integer NumPy's cast makes of it.  Unsigned dtypes (but uint64) take
negatives down to ``-max``, wrapped, as torch's (``[-1]`` as uint8 is 255).  NumPy data keeps NumPy's
cast, as torch's ``tensor(np.array([300]), dtype=uint8)`` does.

The answers are torch's, from ``tests/data/make_torch_integer_creation.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

sys.path.insert(0, str(Path(__file__).with_name("data")))
from integer_creation_cases import CASES  # noqa: E402

ANSWERS = json.loads((Path(__file__).with_name("data") / "torch_integer_creation.json").read_text())


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("case, answer", list(zip(CASES, ANSWERS)), ids=[f"{d}-{t}" for d, t in CASES])
def test_python_numbers_into_an_integer_dtype_as_pytorch(case, answer, device):
    data, dtype = case
    if "error" in answer:
        with pytest.raises(RuntimeError if answer["error"] == "RuntimeError" else Exception) as info:
            mg.tensor(data, dtype=getattr(mg, dtype), device=device)
        assert type(info.value).__name__ != "RuntimeError" or str(info.value) == answer["message"]
        assert isinstance(info.value, RuntimeError) == (answer["error"] == "RuntimeError")
        return
    got = mg.tensor(data, dtype=getattr(mg, dtype), device=device)
    assert got.dtype == getattr(mg, dtype) and got.tolist() == answer["values"]


def test_numpy_data_keeps_numpys_cast_as_pytorch():
    assert mg.tensor(np.array([300]), dtype=mg.uint8).tolist() == [44]
    assert mg.as_tensor([1, 2], dtype=mg.int8).tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.as_tensor([1, 200], dtype=mg.int8)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_scalar_operand_of_arithmetic_still_wraps_as_pytorchs(device):
    """Only the creation functions check: torch 2.13's ``uint8 // 300`` is ``[0, 0, 0]`` and
    ``300 // uint8`` wraps 300 to 44 first."""
    u = mg.tensor([1, 2, 3], dtype=mg.uint8, device=device)
    assert (u // 300).tolist() == [0, 0, 0] and (300 // u).tolist() == [44, 22, 14]
    assert (u + 300).tolist() == [45, 46, 47] and (u % 300).tolist() == [1, 2, 3]
    assert (mg.tensor([5], dtype=mg.int8, device=device) // 300).tolist() == [0]
