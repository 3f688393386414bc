"""Python ints outside int64's range, in data that makes an integer tensor, against torch 2.13's
answers recorded by ``tests/data/make_torch_python_int_range.py`` (torch is not imported here).

Before, NumPy's inference decided: ``mg.tensor([2**63 + 5, 7])`` was a *float32* tensor (the id
rounded to 9.223372e+18), ``[2**63]`` a uint64 one, ``[np.int64(1), 2**63]`` wrapped to -2**63, and so
``default_collate`` of 64-bit hash ids as labels silently rounded them; PyTorch refuses with its
ValueError ('Overflow when unpacking long long') unless a float or uint64 dtype is given.  Past 64
bits (NumPy holds such a list as objects) the engine refused even where PyTorch reads each number as a
double -- beside a float (``[2**64, 1.0]``) or given a float dtype -- with "Could not infer dtype of
list"; found running PyTorch's tensor-creation tests with extremal ints."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, default_collate

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from python_int_range_cases import BATCHES, BIG, TENSORS, answer  # noqa: E402

TORCH = json.loads((DATA / "torch_python_int_range.json").read_text())


@pytest.mark.parametrize("name", sorted(TENSORS))
def test_tensor_of_python_ints_past_int64_answers_as_pytorch(name):
    data, dtype = TENSORS[name]
    assert answer(lambda d, t: mg.tensor(d, dtype=t and getattr(mg, t)), data, dtype) == TORCH["tensor"][name]


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_collating_python_ints_past_int64_answers_as_pytorch(name):
    assert answer(default_collate, BATCHES[name]) == TORCH["collate"][name]


def test_a_loader_of_hash_ids_refuses_them_rather_than_rounding_them():
    loader = DataLoader([(mg.zeros(2), BIG), (mg.ones(2), 7)], batch_size=2)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        next(iter(loader))


def test_python_ints_past_int64_on_the_strict_device():
    import minigrad_ckpt.testing.strict  # noqa: F401

    with pytest.raises(ValueError, match="Overflow"):
        mg.tensor([BIG, 1], device="strict")
    assert mg.tensor([BIG], dtype=mg.float64, device="strict").dtype == mg.float64


def test_python_ints_past_64_bits_beside_a_complex_number_or_given_a_complex_dtype():
    import minigrad_ckpt.testing.strict  # noqa: F401

    # torch 2.13: tensor([2**64, 1j]) is complex64's [1.8447e19+0j, 1j]; NumPy holds the list as
    # objects, which the engine refused ("Could not infer dtype of list") as it did beside a float
    got = mg.tensor([2**64, 1j])
    assert got.dtype == mg.complex64 and got.tolist() == [complex(2.0**64), 1j]
    assert mg.tensor([2**64], dtype=mg.complex128).tolist() == [complex(2.0**64)]
    assert mg.tensor([2**64, 1.0], device="strict").tolist() == [2.0**64, 1.0]
    with pytest.raises(OverflowError):  # past a double too, as PyTorch's
        mg.tensor([10**400, 1.0])
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        mg.tensor([2**64, None, 1.0])
