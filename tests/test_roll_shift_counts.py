"""How many shifts ``roll`` takes for how many dims.

The METHOD is PyTorch's (torch 2.13): ``x.roll((1,))`` without dims rolls the flattened tensor by 1
(it was a TypeError here), ``x.roll(1, (0, 1))`` and ``x.roll((1, 2), 1)`` are refused with
"shifts and dimensions must align" (here they answered NumPy's broadcast: one shift on each dim,
or the two shifts added on one dim), ``x.roll(())`` is refused ("`shifts` required").

The FUNCTION keeps NumPy's meaning, which takes a sequence of shifts without an axis too:
``np.roll(x, (1, 2))`` rolls the flattened array by each in turn, ``np.roll(x, (1,))`` by 1
(``mg.roll`` refused both with a TypeError).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_the_method_takes_one_shift_without_dims_as_pytorch(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor(X, dtype=dtype, device=device)
    # torch 2.13: x.roll((1,)) == x.roll(1) == x.flatten().roll(1).view(2, 3, 4)
    want = np.roll(X, 1)
    for out in (x.roll((1,)), x.roll([1]), x.roll(shifts=[1], dims=[]), x.roll(1)):
        np.testing.assert_array_equal(out.numpy(), want)
        assert out.dtype == dtype
    np.testing.assert_array_equal(x.roll((-1, 2), (1, 2)).numpy(), np.roll(X, (-1, 2), (1, 2)))
    np.testing.assert_array_equal(x.roll(shifts=(1, 1), dims=(0, 0)).numpy(), np.roll(X, 2, 0))


@pytest.mark.parametrize("shifts, dims, counts", [(1, (0, 1), "1, dims:2"), ((1, 2), 1, "2, dims:1"),
                                                  ((1, 2), None, "2, dims:0"), ((1, 2, 3), (0, 1), "3, dims:2")])
def test_the_method_refuses_counts_that_differ_as_pytorch(shifts, dims, counts):
    x = mg.tensor(X)
    with pytest.raises(RuntimeError, match=f"shifts and dimensions must align. shifts: {counts}"):
        x.roll(shifts, dims)
    with pytest.raises(RuntimeError, match="`shifts` required"):
        x.roll(())
    with pytest.raises(TypeError, match="shifts"):
        x.roll(1.5)


def test_the_function_takes_a_sequence_of_shifts_without_an_axis_as_numpy():
    x = mg.tensor(X)
    for shift in ((1,), [1, 2], (), (5, -2, 1)):
        np.testing.assert_array_equal(mg.roll(x, shift).numpy(), np.roll(X, shift))
    np.testing.assert_array_equal(mg.roll(x, (), 0).numpy(), np.roll(X, (), 0))
    np.testing.assert_array_equal(mg.roll(x, (1, 2), 1).numpy(), np.roll(X, (1, 2), 1))  # NumPy's broadcast stays
    with pytest.raises(TypeError, match="shifts must be an int or a sequence"):
        mg.roll(x, 1.5)


def test_the_gradient_and_the_transforms_of_a_flat_roll():
    w = mg.tensor(np.random.default_rng(0).standard_normal(X.shape))
    x = mg.tensor(X, requires_grad=True)
    (x.roll((3,)) * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.roll(w.numpy(), -3))
    g = mg.func.grad(lambda v: (v.roll((3,)) * w).sum())(mg.tensor(X))
    np.testing.assert_array_equal(g.numpy(), np.roll(w.numpy(), -3))
    out = mg.func.vmap(lambda v: v.roll((1,)))(mg.tensor(X))  # each sample's own flat roll
    np.testing.assert_array_equal(out.numpy(), np.stack([np.roll(s, 1) for s in X]))
    y = mg.checkpoint.checkpoint(lambda v: v.roll((2,)) * w, x, use_reentrant=False)
    x.grad = None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.roll(w.numpy(), -2))
