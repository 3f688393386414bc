"""``x[index] = v`` and ``x[index] += v`` as PyTorch 2.13 writes them, where a differential run of random
writes against torch found them apart:

* a repeated index: each write gets the gradient of the place it went to (``index_put``'s backward,
  ``grad[index]``), also the write a later one overwrote; ``x[i] += v`` then sends the place's
  gradient to ``x`` once per repeat.  The last write's value stays (NumPy's and torch's CPU order);
* a write into an empty region leaves the value a zero gradient, not None;
* the bare ``x[False] = v`` writes and checks nothing (a leaf requiring grad, another dtype: both
  taken), ``x[True] = v`` writes as ``x[None] = v`` (a cast, as a basic index);
* a complex number goes into a bool tensor (``1j`` is True) in every write;
* a value that does not broadcast to the region is a RuntimeError, as there (NumPy's was a ValueError
  or a TypeError);
* ``v += w`` of an empty slice ``v`` in forward mode (the base's tangents) does not fail.

Numbers are torch 2.13's, pasted.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

DEVICES = ["cpu", "strict"]
DTYPES = ["float32", "float64"]
W = [1.0, 10.0, 100.0]

# (index, augmented, value) -> torch 2.13's x, x0.grad, v.grad for x0 = [1, 2, 3], loss (x * W).sum()
REPEATS = [
    ([1, -2, -1], False, [5.0, 6.0, 7.0], [1, 6, 7], [1, 0, 0], [10, 10, 100]),
    ([1, -2, -1], True, [5.0, 6.0, 7.0], [1, 8, 10], [1, 20, 100], [10, 10, 100]),
    ([1, 1], False, 5.0, [1, 5, 3], [1, 0, 100], 20),
    (slice(1, 1), False, [5.0], [1, 2, 3], [1, 10, 100], [0]),
]


def written(device, dtype, index, augmented, value, through_checkpoint=False):
    x0 = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)
    v = mg.tensor(value, dtype=dtype, device=device, requires_grad=True)

    def write(x0, v):
        x = x0.clone()
        if augmented:
            x[index] += v
        else:
            x[index] = v
        return x
    x = mg.checkpoint.checkpoint(write, x0, v) if through_checkpoint else write(x0, v)
    (x * mg.tensor(W, dtype=dtype, device=device)).sum().backward()
    return x, x0.grad, v.grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("through_checkpoint", [False, True])
@pytest.mark.parametrize("index, augmented, value, x_after, x_grad, v_grad", REPEATS)
def test_gradients_of_repeated_and_empty_writes_are_pytorchs(index, augmented, value, x_after, x_grad, v_grad,
                                                            dtype, device, through_checkpoint):
    x, g_x, g_v = written(device, dtype, index, augmented, value, through_checkpoint)
    np.testing.assert_array_equal(x.detach().cpu().numpy(), x_after)
    np.testing.assert_array_equal(g_x.cpu().numpy(), x_grad)
    assert g_v is not None and g_v.dtype == dtype
    np.testing.assert_array_equal(g_v.cpu().numpy(), v_grad)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_mode_of_a_repeated_write_carries_the_last_writes_tangent(device, dtype):
    def write(x0, v):
        x = x0.clone()
        x[[1, -2, -1]] = v
        return x
    primal = (mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device), mg.tensor([5.0, 6.0, 7.0], dtype=dtype,
                                                                                  device=device))
    tangent = (mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device), mg.tensor([50.0, 60.0, 70.0], dtype=dtype,
                                                                                   device=device))
    out, t_out = mg.func.jvp(write, primal, tangent)
    np.testing.assert_array_equal(out.cpu().numpy(), [1, 6, 7])
    np.testing.assert_array_equal(t_out.cpu().numpy(), [1, 60, 70])  # torch.func.jvp's


def test_forward_mode_through_an_augmented_write_of_an_empty_slice():
    def write(x, v):
        y = x.clone()
        y[:-4] += v
        return y
    out, t_out = mg.func.jvp(write, (mg.ones(2), mg.ones(1)), (mg.ones(2), mg.ones(1)))
    np.testing.assert_array_equal(t_out.numpy(), [1, 1])


def test_a_bare_false_writes_and_checks_nothing_but_a_numbers_conversion():
    leaf = mg.zeros(3, requires_grad=True)
    leaf[False] = 1.0  # (torch: no leaf error either)
    ints = mg.zeros(3, dtype=mg.int64)
    ints[False] = mg.tensor([1.5, 2.5, 3.5])  # (in a tuple, (False,), this is index_put's dtype error)
    np.testing.assert_array_equal(ints.numpy(), [0, 0, 0])
    with pytest.raises(RuntimeError, match="cannot be converted"):
        ints[False] = 1 + 2j
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        ints[(False,)] = mg.tensor([1.5, 2.5, 3.5])


def test_a_bare_true_writes_as_a_basic_index():
    ints = mg.zeros(3, dtype=mg.int64)
    ints[True] = mg.tensor([1.5, 2.5, 3.5])  # a cast, as x[None] = v
    np.testing.assert_array_equal(ints.numpy(), [1, 2, 3])
    with pytest.raises(RuntimeError, match="leaf"):
        mg.zeros(3, requires_grad=True)[True] = 1.0


def test_a_complex_number_goes_into_a_bool_tensor():
    mask = mg.tensor([True, False, True])
    np.testing.assert_array_equal(mg.zeros(3, dtype=mg.bool).fill_(1 + 2j).numpy(), [True] * 3)
    np.testing.assert_array_equal(mg.full((2,), 1j, dtype=mg.bool).numpy(), [True] * 2)
    for value in (1j, mg.tensor(1j)):
        np.testing.assert_array_equal(mg.zeros(3, dtype=mg.bool).masked_fill(mask, value).numpy(), [True, False, True])
    np.testing.assert_array_equal(mg.zeros(3, dtype=mg.bool).scatter(0, mg.tensor([0, 2]), 1j).numpy(),
                                  [True, False, True])
    x = mg.zeros(3, dtype=mg.bool)
    x[mask] = 1 + 2j
    x[1] = 0j
    np.testing.assert_array_equal(x.numpy(), [True, False, True])
    with pytest.raises(RuntimeError, match="cannot be converted"):  # a real tensor still refuses one
        mg.zeros(3).fill_(1 + 2j)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index, shape, words", [  # torch 2.13's words: expand's through a view's index,
    ((-1, Ellipsis), (3,), "number of sizes provided"),  # a region of one element (NumPy: ValueError)
    ((0, -1), (4, 2), "number of sizes provided"),  # (NumPy: "setting an array element with a sequence")
    (mg.tensor(0), (3,), "number of sizes provided"),  # (NumPy: a TypeError for a complex value)
    (mg.tensor([False, True, False]), (3,), "shape mismatch"),  # a mask (NumPy: "cannot assign 2 input values")
    ((None, 0), (3, 1), "expanded size of the tensor"),
    (([0],), (1, 1), "shape mismatch"),  # index_put_'s through an index tensor or mask
])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_value_that_does_not_fit_the_region_is_a_runtime_error(index, shape, words, device, requires_grad):
    x = mg.zeros(shape, dtype=mg.complex64, device=device) * 1
    if requires_grad:
        x = mg.zeros(shape, dtype=mg.complex64, device=device, requires_grad=True).clone()
    if isinstance(index, mg.Tensor):
        index = index.to(device)
    with pytest.raises(RuntimeError, match=words):
        x[index] = mg.ones(5, 5, dtype=mg.complex64, device=device)[:2, :2] if shape == (1, 1) else \
            mg.ones(2, 2, dtype=mg.complex64, device=device)[0]
