"""``x[index]`` reads each item of the index as PyTorch 2.13 does, where NumPy reads it otherwise.

Found by a differential run of random index expressions against torch 2.13:

* a 0-d integer tensor (or a 0-d integer NumPy array) is an integer to PyTorch -- a select, so
  ``x[i]`` is a view that a write goes through (``x[i].fill_(0)``, ``x[i][0] = 1`` in a loop over
  ``arange(n)``); it was a copy here, and the write was lost.  A 0-d int16 one is an integer too,
  but an int8 or int16 index tensor of some dims is refused (an IndexError), as there;
* a uint8 NumPy array is a mask, as a uint8 tensor is (PyTorch's deprecated spelling);
* ``True``/``False`` is an index array over a dim it adds, and PyTorch takes the integers beside it
  as selects first, so where an integer stands apart from it across a slice or ``None``, the
  result's dims are in PyTorch's order (NumPy moves the broadcast dims to the front);
* several ``...`` each stand for the dims no other index takes (NumPy refuses a second one);
* on a device that wraps a bad index (the strict stand-in, as CuPy), an integer array beside a
  mask of no True selects nothing and raises nothing, as on the CPU.

Expected shapes and values are torch 2.13's, pasted; ``x`` holds ``arange``, so a result's values
name the places it came from, and the gradient and tangent follow from them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

DEVICES = ["cpu", "strict"]
DTYPES = ["float32", "float64"]

# index into arange(60).reshape(3, 4, 5) -> torch 2.13's shape and values
BOOL_BESIDE_INTS = [
    ((0, slice(None), 1, False), (4, 0), []),
    ((2, None, False), (1, 0, 4, 5), []),
    ((slice(1, 3), True, None, -1), (2, 1, 1, 5), [35, 36, 37, 38, 39, 55, 56, 57, 58, 59]),
    ((-2, slice(1, None, 2), True), (2, 1, 5), [25, 26, 27, 28, 29, 35, 36, 37, 38, 39]),
    ((True, 0, slice(None), [1, 2]), (2, 4), [1, 6, 11, 16, 2, 7, 12, 17]),
]
SEVERAL_ELLIPSES = [
    ((Ellipsis, 1, Ellipsis), (3, 4), list(range(1, 60, 5))),
    ((1, Ellipsis, Ellipsis), (4, 5), list(range(20, 40))),
    ((Ellipsis, None, Ellipsis), (3, 4, 5, 1), list(range(60))),
    ((0, Ellipsis, 1, Ellipsis), (4,), [1, 6, 11, 16]),
    ((0, 1, 2, Ellipsis, Ellipsis), (), [7]),
    ((Ellipsis, [0, 2], Ellipsis), (3, 4, 2), [v for r in range(12) for v in (5 * r, 5 * r + 2)]),
]


def on(device, index):
    """``index`` with its tensors moved to ``device``."""
    move = (lambda it: it.to(device) if isinstance(it, mg.Tensor) else it)  # noqa: E731
    return tuple(move(it) for it in index) if type(index) is tuple else move(index)


def expected_gradient(places, w, dtype):
    """The gradient of ``(x[index] * w).sum()`` for a result whose values are ``places`` of arange."""
    g = np.zeros(60, dtype)
    np.add.at(g, np.asarray(places, int).reshape(-1), np.asarray(w).reshape(-1))
    return g.reshape(3, 4, 5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index, shape, values", BOOL_BESIDE_INTS + SEVERAL_ELLIPSES)
def test_result_gradient_and_tangent_follow_pytorchs_reading(index, shape, values, dtype, device):
    x = mg.arange(60, dtype=dtype, device=device).reshape(3, 4, 5).requires_grad_()
    out = x[on(device, index)]
    assert out.shape == shape and out.dtype == dtype
    np.testing.assert_array_equal(out.detach().cpu().numpy().reshape(-1), values)
    w = mg.arange(1, 1 + out.numel(), dtype=dtype, device=device).reshape(shape)
    (out * w).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), expected_gradient(values, w.cpu().numpy(), dtype))
    inside = mg.arange(60, dtype=dtype, device=device).reshape(3, 4, 5).requires_grad_()
    (mg.checkpoint.checkpoint(lambda t: t[on(device, index)], inside) * w).sum().backward()
    np.testing.assert_array_equal(inside.grad.cpu().numpy(), x.grad.cpu().numpy())
    tangent = mg.arange(60, dtype=dtype, device=device).reshape(3, 4, 5) * 2
    _, t_out = mg.func.jvp(lambda t: t[on(device, index)], (x.detach(),), (tangent,))
    np.testing.assert_array_equal(t_out.cpu().numpy().reshape(-1), 2 * np.asarray(values, dtype))


def test_a_second_ellipsis_that_leaves_an_index_past_the_end_is_refused():
    x = mg.zeros(3, 4, 5)
    for index in [(Ellipsis, Ellipsis, 1), (Ellipsis, 0, Ellipsis, None)]:  # torch 2.13: an IndexError too
        with pytest.raises(IndexError, match="too many indices"):
            x[index]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("make_index", [
    lambda device: mg.tensor(-2, device=device),
    lambda device: mg.tensor(1, dtype=mg.int32, device=device),
    lambda device: mg.tensor(1, dtype=mg.int16, device=device),
    lambda device: np.array(1),
    lambda device: [mg.tensor(1, device=device), mg.tensor(2, device=device)],  # a tuple of two selects
], ids=["int64", "int32", "int16", "numpy", "list of two"])
def test_a_zero_dim_integer_index_is_a_select_that_writes_go_through(make_index, device):
    x = mg.arange(12.0, device=device).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the list: the non-tuple sequence warning, as PyTorch's)
        view = x[make_index(device)]
    view.fill_(-1)
    assert (x.cpu().numpy() == -1).sum() == view.numel()


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_small_integer_index_tensors_are_refused_as_in_pytorch(dtype):
    with pytest.raises(IndexError, match="must be long, int, byte or bool tensors, got " + dtype):
        mg.zeros(3)[mg.tensor([0, 1], dtype=dtype)]
    np.testing.assert_array_equal(mg.arange(3.0)[np.array([2, 0], dtype=dtype)].numpy(), [2, 0])  # NumPy's: taken


@pytest.mark.parametrize("index, shape", [(np.array([1, 0, 1], dtype=np.uint8), (2, 4)),
                                          (np.array(1, dtype=np.uint8), (1, 3, 4))])
def test_a_uint8_numpy_array_is_a_mask(index, shape):
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        assert mg.zeros(3, 4)[index].shape == shape


@pytest.mark.parametrize("device", DEVICES)
def test_an_out_of_range_array_beside_a_mask_of_no_true_selects_nothing(device):
    x = mg.arange(3.0, device=device)
    for mask in (mg.tensor(False, device=device), mg.tensor([False, False], device=device)):
        index = (mg.tensor([-4], device=device), mask) if mask.ndim == 0 else (mask, mg.tensor([7], device=device))
        x2 = x if mask.ndim == 0 else mg.zeros(2, 3, device=device)
        assert x2[index].shape == (0,)
