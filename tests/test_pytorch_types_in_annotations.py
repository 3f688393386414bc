"""The names PyTorch code uses as types are types here too: ``torch.finfo``, ``torch.iinfo`` and
``torch.memory_format`` appear in annotations evaluated as a function is defined (``eps: torch.finfo |
None = None``) and in ``isinstance`` checks; a function there made the module fail as it loaded
('unsupported operand type(s) for |'), as ``mg.device`` did (tests/test_device_is_a_type.py)."""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("name", ["finfo", "iinfo", "memory_format", "device", "layout", "dtype"])
def test_the_name_joins_a_union_in_an_annotation(name):
    def f(x: getattr(mg, name) | None = None):  # evaluated now, as a module's annotations are
        return x

    assert f() is None and isinstance(getattr(mg, name), type)


def test_finfo_and_iinfo_answer_for_a_dtype_and_are_what_they_answer():
    f, i = mg.finfo(mg.float32), mg.iinfo(mg.int16)
    assert isinstance(f, mg.finfo) and isinstance(i, mg.iinfo)
    assert (f.eps, f.bits, f.dtype) == (2.0 ** -23, 32, "float32") and mg.finfo().dtype == "float32"
    assert (i.min, i.max, i.bits) == (-32768, 32767, 16) and mg.iinfo(type=mg.int16) == i
    assert copy.deepcopy(f) == f and pickle.loads(pickle.dumps(i)) == i  # (not through the dtype question)
    assert list(inspect.signature(mg.finfo).parameters) == ["type"]
    with pytest.raises(TypeError, match="requires an integer"):
        mg.iinfo(mg.float32)
    with pytest.raises(TypeError, match="requires a floating point"):
        mg.finfo(mg.int64)


def test_memory_format_is_the_type_of_the_formats():
    assert all(isinstance(m, mg.memory_format) for m in
               (mg.contiguous_format, mg.preserve_format, mg.channels_last, mg.channels_last_3d))


def test_device_without_its_type_is_refused_as_pytorch_does():
    with pytest.raises(TypeError, match="device's type"):
        mg.device()
    assert mg.device(type="cpu") is mg.device("cpu") is mg.device(mg.device("cpu"))
