"""``as_tensor``/``asarray`` of a NumPy array with a ``dtype=`` convert it, and ``asarray`` of a tensor
keeps PyTorch's autograd semantics.  torch 2.13 (reference numbers from it):

* ``torch.as_tensor(np.arange(4, dtype=np.int32), dtype=torch.float64)`` is a float64 copy
  ``[0., 1., 2., 3.]``; here it was the int32 array itself, shared (a NumPy dtype equals ``None``
  when it is float64, so ``float64 in (None, arr.dtype)`` held for every array).
* ``torch.asarray(x, copy=True)`` of an ``x`` that requires grad is on the tape (``CloneBackward0``),
  and ``torch.asarray(x, requires_grad=False)`` does not require grad; left out, ``requires_grad``
  is ``x``'s own.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SOURCES = ["int32", "int16", "uint8", "bool", "float16", "float32", "complex64"]


@pytest.mark.parametrize("make", [mg.as_tensor, mg.asarray], ids=["as_tensor", "asarray"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_numpy_array_with_another_dtype_is_converted_not_shared(make, source, dtype):
    a = np.arange(4).astype(source)
    t = make(a, dtype=getattr(mg, dtype))
    expected = a.astype(dtype)
    assert t.dtype == getattr(mg, dtype)
    if source == dtype:  # the same dtype: shared, as PyTorch's
        a[0] = 9
        assert t.tolist()[0] == 9
        return
    a[0] = 1  # a copy: a write to the array is not seen
    np.testing.assert_array_equal(t.numpy(), expected)


def test_a_float64_array_asked_for_float64_is_still_shared():
    a = np.arange(3.0)
    t = mg.as_tensor(a, dtype=mg.float64)
    a[0] = 7.0
    assert t.tolist() == [7.0, 1.0, 2.0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_asarray_copy_of_a_tensor_that_requires_grad_stays_on_the_tape(device, dtype):
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = mg.asarray(x, copy=True)
    assert y is not x and y.requires_grad and not y.is_leaf and y.dtype == dtype
    (y * mg.tensor([3.0, 4.0], dtype=dtype, device=device)).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    with mg.no_grad():
        x.add_(1.0)
    assert y.tolist() == [1.0, 2.0]  # a copy


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_asarray_requires_grad_false_does_not_record_and_left_out_keeps_the_flag(device):
    x = mg.tensor([1.0, 2.0], device=device, requires_grad=True)
    assert mg.asarray(x) is x and mg.asarray(x).requires_grad
    for y in (mg.asarray(x, requires_grad=False), mg.asarray(x * 2, requires_grad=False),
              mg.asarray(x, dtype=mg.float64, requires_grad=False), mg.asarray(x, copy=True, requires_grad=False)):
        assert not y.requires_grad and y.grad_fn is None
    assert x.requires_grad  # the caller's tensor is not switched off
    assert mg.asarray(x, dtype=mg.float64).requires_grad  # a conversion on the tape, as PyTorch's
    assert mg.asarray([1.0], requires_grad=None).requires_grad is False


def test_asarray_copy_of_a_tensor_gives_no_copy_construct_warning(recwarn):
    mg.asarray(mg.ones(2), copy=True)
    assert not [w for w in recwarn if "copy construct" in str(w.message)]
