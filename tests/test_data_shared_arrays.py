"""Arrays of dtypes a tensor has not, shared (``as_tensor``, ``from_numpy``) or converted by a
DataLoader without batching (``default_convert``), against torch 2.13's answers recorded by
``tests/data/make_torch_shared_arrays.py`` (torch is not imported here).

Before, the shared path wrapped any array as it was: ``mg.as_tensor(np.array(['2020-01-01'],
dtype='datetime64[D]'))`` was a datetime64 "tensor" (and a longdouble, a record or a big-endian array
likewise), which ``default_convert`` handed to the training loop and no op could compute with;
PyTorch refuses them (TypeError; the other byte order ValueError), as ``mg.tensor`` did already."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, default_convert

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from shared_array_cases import ARRAYS, answer  # noqa: E402

TORCH = json.loads((DATA / "torch_shared_arrays.json").read_text())["cases"]
FUNCTIONS = {"as_tensor": mg.as_tensor, "from_numpy": mg.from_numpy, "default_convert": default_convert}


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_sharing_an_array_answers_as_pytorch(name, function):
    assert answer(FUNCTIONS[function], ARRAYS[name]()) == TORCH[name][function]


def test_an_unbatched_loader_refuses_a_sample_of_datetimes():
    loader = DataLoader([np.array([f"2020-01-0{i + 1}"], dtype="datetime64[D]") for i in range(2)],
                        batch_size=None)
    with pytest.raises(TypeError, match="datetime64"):
        next(iter(loader))


def test_a_shared_array_of_a_tensor_dtype_is_still_shared():
    a = np.arange(3.0, dtype=np.float32)
    t = mg.as_tensor(a)
    t.add_(1)
    assert a.tolist() == [1.0, 2.0, 3.0]  # the same memory, as before


def _misstrided() -> np.ndarray:
    """Three float64s 3 bytes apart: a view NumPy can make, whose stride counts no whole element."""
    base = np.zeros(4)
    return np.lib.stride_tricks.as_strided(base, shape=(3,), strides=(3,))


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_sharing_an_array_whose_strides_count_no_whole_element_is_refused(function):
    # Found running PyTorch's test_numpy_interop against the engine: such an array was shared, and
    # ``stride()`` answered ``(0,)`` -- a broadcast tensor's stride -- for a 3-byte step.  PyTorch
    # refuses it with this ValueError (a copy, ``mg.tensor(a)``, is how to take it).
    with pytest.raises(ValueError, match="strides not a multiple of the element byte size"):
        FUNCTIONS[function](_misstrided())
    assert mg.tensor(_misstrided()).stride() == (1,)


def test_a_shared_arrays_byte_strides_are_counted_in_elements():
    a = np.arange(24.0).reshape(4, 6)[::2, 1::3]  # byte strides (96, 24)
    t = mg.from_numpy(a)
    assert t.stride() == (12, 3) and t.tolist() == a.tolist()
