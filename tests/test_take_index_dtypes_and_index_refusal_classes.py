"""``take``'s index dtypes, and the exception classes of index refusals, as torch 2.13 raises them.

``mg.take`` is NumPy's ``take``, which reads a uint8 index as numbers; it went through ``x[i]``,
which reads uint8 as PyTorch's (deprecated) mask, so ``mg.take(x, uint8 [2])`` was a shape error
and a uint8 index of the mask's length silently selected by mask.  ``x.take(index)`` is
PyTorch's, which takes int64 alone ("take(): Expected a long tensor for index, but got Int");
int32 and uint8 indices were answered.  The refusals below were raised in another class than
PyTorch's (a handler written for PyTorch's missed them); each now is both."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_numpy_take_reads_a_uint8_index_as_numbers():
    x = mg.arange(6.0).reshape(2, 3)
    assert mg.take(x, mg.tensor([5, 0], dtype=mg.uint8)).tolist() == [5.0, 0.0]
    assert mg.take(x, mg.tensor([1, 1, 0], dtype=mg.uint8)).tolist() == [1.0, 1.0, 0.0]  # not a mask
    assert mg.take(x, mg.tensor([2], dtype=mg.uint8), 1).tolist() == [[2.0], [5.0]]
    assert mg.take(x, np.array([4], np.uint8)).tolist() == [4.0]


@pytest.mark.parametrize(("dtype", "name"), [(mg.int32, "Int"), (mg.uint8, "Byte"), (mg.int16, "Short"),
                                             (mg.bool, "Bool"), (mg.float32, "Float")])
def test_the_take_method_takes_int64_alone(dtype, name):
    x = mg.arange(4.0)
    with pytest.raises(RuntimeError, match=f"take\\(\\): Expected a long tensor for index, but got {name}$"):
        x.take(mg.tensor([1], dtype=dtype))
    assert x.take(mg.tensor([[3, -1]])).tolist() == [[3.0, 3.0]]


def test_take_from_an_empty_tensor_in_pytorchs_words():
    with pytest.raises(IndexError, match=r"^take\(\): tried to take from an empty tensor$"):
        mg.zeros(0).take(mg.tensor([0]))


@pytest.mark.parametrize("call", [
    lambda x, i: x.index_fill(0, i, 1.0),  # PyTorch's RuntimeError "Index has to be a vector/scalar"
    lambda x, i: x.index_add(0, i, mg.ones(1, 2)),  # the others' IndexError
    lambda x, i: x.index_copy(0, i, mg.ones(1, 2)),
    lambda x, i: x.index_reduce(0, i, mg.ones(1, 2), "prod"),
])
def test_an_index_of_two_dims_is_both_classes(call):
    with pytest.raises(RuntimeError) as caught:
        call(mg.zeros(3, 2), mg.zeros(1, 1, dtype=mg.long))
    assert isinstance(caught.value, IndexError)


def test_put_of_another_count_of_source_elements_is_pytorchs_index_error():
    with pytest.raises(IndexError, match=r"put_\(\): Expected source and index to have the same number of elements, "
                                         r"but got source.numel\(\) = 1, index.numel\(\) = 2"):
        mg.zeros(3).put(mg.tensor([0, 1]), mg.ones(1))


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_amax_amin_of_complex_numbers_is_not_implemented(reduce):
    x, i = mg.zeros(3, dtype=mg.complex64), mg.tensor([1, 1])
    with pytest.raises(NotImplementedError):
        x.scatter_reduce(0, i, mg.ones(2, dtype=mg.complex64), reduce)
    with pytest.raises(TypeError):  # the class it was before
        x.index_reduce(0, i, mg.ones(2, dtype=mg.complex64), reduce)
