"""``x.new(...)``, PyTorch's legacy constructor, as torch 2.13 answers it (values pasted from it).

NVIDIA/tacotron2's decoder builds every zero state as ``memory.data.new(B, n).zero_()``; the
method was missing, so the port stopped with an AttributeError at its first step."""

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_a_size_gives_that_shape_in_the_tensors_dtype():
    x = mg.zeros(2, 3, dtype=mg.float64)
    y = x.new(2, 4).zero_()
    assert y.shape == (2, 4) and y.dtype == mg.float64 and not y.requires_grad
    assert x.new(x.shape).shape == (2, 3)              # an mg.Size is a size, as torch.Size
    assert x.new(np.int64(3)).shape == (3,)
    assert x.new().shape == (0,) and x.new(()).shape == (0,)
    assert mg.tensor([1, 2]).new(3).dtype == mg.int64


def test_a_sequence_is_data_cast_to_the_tensors_dtype():
    x = mg.zeros(1, dtype=mg.float64)
    assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new([1, 2]).dtype == mg.float64
    assert x.new((2, 3)).tolist() == [2.0, 3.0]        # torch 2.13: a tuple is data, not a size
    assert x.new([[1, 2], [3, 4]]).shape == (2, 2)
    assert x.new(np.array([1, 2])).tolist() == [1.0, 2.0]
    assert mg.tensor([1, 2]).new([1.7]).tolist() == [1]


def test_a_tensor_of_the_same_dtype_is_a_view_of_it():
    a = mg.zeros(2, dtype=mg.float64, requires_grad=True)
    b = mg.ones(1, dtype=mg.float64).new(a)
    assert b.requires_grad                              # torch 2.13: a view, grad_fn and all
    b.data[0] = 5.0
    assert a.tolist() == [5.0, 0.0]


def test_what_pytorch_refuses_is_refused():
    x = mg.zeros(1, dtype=mg.float64)
    with pytest.raises(TypeError, match="data must be a sequence"):
        x.new(2.5)
    with pytest.raises(TypeError):
        x.new(mg.tensor([1, 2]))                        # another dtype
    with pytest.raises(RuntimeError, match="Legacy tensor new"):  # torch 2.13: a RuntimeError
        x.new(mg.zeros(2, dtype=mg.float64), device="cpu")
    with pytest.raises(TypeError):
        x.new([1, 2], dtype=mg.int64)                   # new() takes device= only
    with pytest.raises(TypeError):
        x.new(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="negative dimension"):
        x.new(-1)


def test_new_tensor_of_a_tensor_warns_at_the_users_line_as_mg_tensor_does():
    # torch 2.13: "To copy construct from a tensor, ... rather than tensor.new_tensor(sourceTensor)."
    import warnings
    x = mg.zeros(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x.new_tensor(x)
        x.new_tensor([1.0, 2.0])
    assert y.tolist() == [0.0, 0.0]
    assert len(caught) == 1 and "rather than tensor.new_tensor(sourceTensor)" in str(caught[0].message)
    assert caught[0].filename == __file__


def test_pytorchs_size_and_sequence_reading_of_one_argument():
    # torch 2.13: an integer 0-d array is an int, so a size; a range is a sequence, so data; a NumPy
    # scalar that is not an integer, a bool and a str are not sequences
    x = mg.zeros(1, dtype=mg.float64)
    assert x.new(np.array(3)).shape == (3,)
    assert x.new(np.array(3.0)).shape == () and x.new(np.array(3.0)).item() == 3.0
    assert x.new(range(3)).tolist() == [0.0, 1.0, 2.0]
    assert x.new(size=(2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match=r"data must be a sequence \(got numpy.float64\)"):
        x.new(np.float64(3))
    with pytest.raises(TypeError, match=r"data must be a sequence \(got bool\)"):
        x.new(True)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        x.new("ab")


def test_python_ints_an_integer_dtype_cannot_hold_are_refused_as_mg_tensors():
    # torch 2.13: x.new([300]) and x.new_tensor([300]) of an int8 x are its RuntimeError, as
    # torch.tensor([300], dtype=torch.int8); they wrapped to 44
    x = mg.zeros(1, dtype=mg.int8)
    with pytest.raises(RuntimeError, match="without overflow"):
        x.new([300])
    with pytest.raises(RuntimeError, match="without overflow"):
        x.new_tensor([300])
    assert x.new([100]).tolist() == [100] and x.new_tensor([-100]).tolist() == [-100]
