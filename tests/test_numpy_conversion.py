"""NumPy's conversion protocol on tensors: ``np.array(t)``, ``np.asarray(t)``, lists of tensors.

PyTorch programs hand tensors to NumPy all the time -- pytorch/examples' siamese network groups
its labels with ``np.where(np.array(targets.clone(), dtype=None, copy=None) == i)``, training
loops call ``np.mean(losses)`` -- and PyTorch's ``Tensor.__array__`` gives the numbers. Without
the protocol NumPy falls back to the sequence protocol and silently builds an *object* array of
0-d tensors, on which ``==``, ``mean`` and ``where`` give wrong or odd answers.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

DTYPES = [mg.float32, mg.float64, mg.int64, mg.int32, mg.uint8, mg.bool, mg.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)])
def test_array_and_asarray_give_the_values_in_the_tensors_dtype(dtype, shape):
    values = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype)
    t = mg.tensor(values)
    for convert in (np.array, np.asarray, lambda x: np.array(x, dtype=None, copy=None)):
        a = convert(t)
        assert type(a) is np.ndarray and a.dtype == dtype and a.shape == shape
        np.testing.assert_array_equal(a, values)


def test_asarray_is_a_read_only_view_and_array_a_writable_copy():
    t = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    view = np.asarray(t)
    assert not view.flags.writeable and np.shares_memory(view, t.numpy())
    copy = np.array(t)
    assert copy.flags.writeable and not np.shares_memory(copy, t.numpy())
    copy[0, 0] = 100.0
    assert t[0, 0].item() == 1.0
    np.testing.assert_array_equal(np.asarray(t.T), [[1.0, 3.0], [2.0, 4.0]])  # a strided view


def test_dtype_converts_and_copy_false_refuses_a_conversion():
    t = mg.tensor([1, 2, 3])
    a = np.asarray(t, dtype=np.float32)
    assert a.dtype == np.float32 and a.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        np.asarray(t, dtype=np.float32, copy=False)
    assert np.asarray(t, copy=False).tolist() == [1, 2, 3]


def test_tensors_that_require_grad_and_results_on_the_tape_convert_to_their_values():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    np.testing.assert_array_equal(np.array(w * 3), [3.0, 6.0])
    np.testing.assert_array_equal(np.asarray(w), [1.0, 2.0])


def test_lists_of_zero_d_tensors_become_number_arrays():
    losses = [mg.tensor(0.5), mg.tensor(1.5), mg.tensor(4.0)]
    assert np.mean(losses) == pytest.approx(2.0)
    a = np.array(losses)
    assert a.dtype == np.float32 and a.tolist() == [0.5, 1.5, 4.0]
    assert np.stack([mg.ones(2), mg.zeros(2)]).tolist() == [[1.0, 1.0], [0.0, 0.0]]


def test_the_siamese_network_label_grouping_idiom():
    targets = mg.tensor([3, 1, 3, 0, 1, 3])
    labels = np.array(targets.clone(), dtype=None, copy=None)
    assert labels.dtype == np.int64
    assert {i: np.where(labels == i)[0].tolist() for i in range(4)} == {0: [3], 1: [1, 4], 2: [], 3: [0, 2, 5]}


def test_a_device_tensor_is_refused_with_pytorchs_type_error():
    t = mg.ones(3, device="strict")
    with pytest.raises(TypeError, match=r"Tensor\.cpu\(\)"):
        np.asarray(t)
    with pytest.raises(TypeError, match=r"Tensor\.cpu\(\)"):
        np.array([t])
    np.testing.assert_array_equal(np.asarray(t.cpu()), [1.0, 1.0, 1.0])


def test_mg_tensor_of_a_list_of_tensors_keeps_pytorchs_rules_beside_the_protocol():
    # NumPy could now convert the list itself; mg.tensor still reads each one-element tensor as a
    # number of its own dtype and refuses a bigger one, as torch.tensor does
    assert mg.tensor([mg.tensor(1, dtype=mg.int32), mg.tensor(2, dtype=mg.int32)]).dtype == mg.int32
    assert mg.tensor([mg.tensor(1.5, dtype=mg.float64), 2]).dtype == mg.float64
    assert mg.tensor([[mg.tensor(1.0)], [2.0]]).tolist() == [[1.0], [2.0]]
    with pytest.raises(ValueError, match="only one element tensors"):
        mg.tensor([mg.tensor([1, 2]), mg.tensor([3, 4])])


# Found running PyTorch's numpy-interop tests against the engine, comparing memory sharing both
# ways: the array ``numpy()`` gives is a view, but a later *recorded* in-place write (a tensor on
# the tape) gave the tensor new memory, so the array kept the old values -- ``feats =
# h.detach().numpy(); h.mul_(3)`` showed [2, 4, 6] where torch 2.13 shows [6, 12, 18].

def _on_the_tape():
    w = mg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    return w, w * 2


@pytest.mark.parametrize("show", [lambda h: h.numpy(), lambda h: h.detach().numpy(), lambda h: np.asarray(h),
                                  lambda h: h[1:].detach().numpy()],
                         ids=["numpy", "detach-numpy", "asarray", "view-detach-numpy"])
def test_the_array_shows_a_recorded_in_place_write_and_the_gradient_holds(show):
    w, h = _on_the_tape()
    shown = show(h)
    h.mul_(3)
    h[1] = 0.0
    assert shown.tolist() == [6.0, 0.0, 18.0][3 - len(shown):]  # torch: the same values
    h.sum().backward()
    assert w.grad.tolist() == [6.0, 0.0, 6.0]


def test_a_value_backward_needs_written_after_numpy_is_pytorchs_error():
    # Its memory is seen outside now, so the write goes into it and the version check sees it.
    w, h = _on_the_tape()
    y = h.sin()  # saves h
    h.numpy()
    h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
