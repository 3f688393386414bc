"""``x[index] = value`` as PyTorch's: a value's leading size-1 dims are dropped before it is
broadcast to the indexed region (``h[t] = out`` with an ``out`` of shape ``(1, H)``), with or
without gradients, through a bool mask too; a one-element value of another dtype is cast where
PyTorch's ``index_put_`` goes to ``masked_fill`` (one bool mask, whatever ints and slices stand
beside it), except a complex value with an imaginary part into a real tensor.  Expected values
are torch 2.13's (they follow from the write: sum(x * x) has gradient 2 x, and 0 where written)."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)

MASK_ROWS = [True, False, True]
MASK_ALL = [[True, False, True, True]] * 3

# (index builder, value shape): each value has a leading 1 more than the region it fills
CASES = [
    (lambda: (0,), (1, 4)),
    (lambda: (0,), (1, 1, 4)),
    (lambda: (slice(0, 2),), (1, 1, 4)),
    (lambda: (mg.tensor([0, 2]),), (1, 1, 1)),
    (lambda: (slice(None), mg.tensor([0, 2])), (1, 1, 1)),
    (lambda: (mg.tensor(MASK_ROWS),), (1, 1, 4)),
    (lambda: (mg.tensor(MASK_ALL),), (1, 1)),
    (lambda: (mg.tensor([[0, 1]]), mg.tensor([[2, 3]])), (1, 1, 1)),
]


def _written(index, shape=(3, 4)):
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(i.cpu().numpy() if isinstance(i, mg.Tensor) else i for i in index)] = True
    return mask


@pytest.mark.parametrize("make_index, value_shape", CASES)
def test_a_value_with_leading_ones_fills_the_region(make_index, value_shape):
    index = make_index()
    x = mg.arange(12.0, dtype="float64").reshape(3, 4)
    value = np.arange(5.0, 5.0 + np.prod(value_shape)).reshape(value_shape)
    x[index] = mg.tensor(value)
    expected = np.arange(12.0).reshape(3, 4)
    # every value here is (1, ..., 1, n): without its leading 1s, a row of n (or a number)
    expected[tuple(i.numpy() if isinstance(i, mg.Tensor) else i for i in index)] = value.reshape(-1)
    np.testing.assert_array_equal(x.numpy(), expected)


@pytest.mark.parametrize("make_index, value_shape", CASES)
@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict-f32", "float32")])
def test_a_recorded_write_with_leading_ones_has_pytorchs_gradients(make_index, value_shape, device, dtype):
    index = tuple(i.to(device) if isinstance(i, mg.Tensor) else i for i in make_index())
    w = mg.arange(12.0, dtype=dtype, device=device).reshape(3, 4).requires_grad_()
    v = mg.tensor(np.arange(5.0, 5.0 + np.prod(value_shape)).reshape(value_shape), dtype=dtype, device=device,
                  requires_grad=True)
    x = w * 1
    x[index] = v * 2
    (x * x).sum().backward()
    written = _written(index)
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.where(written, 0.0, 2 * np.arange(12.0).reshape(3, 4)))
    # each element of v fills written.sum() / v.size places, each with gradient 2 * (2 v) * 2
    np.testing.assert_allclose(v.grad.cpu().numpy(), 8 * v.detach().cpu().numpy() * (written.sum() // v.numel()))


def test_forward_mode_through_a_write_with_leading_ones():
    def f(v):
        x = mg.zeros(3, 4, dtype="float64")
        x[1] = v * 2
        return x

    v = mg.ones(1, 4, dtype="float64")
    _, tangent = mg.func.jvp(f, (v,), (mg.full((1, 4), 3.0, dtype="float64"),))
    np.testing.assert_array_equal(tangent.numpy(), [[0.0] * 4, [6.0] * 4, [0.0] * 4])


# one bool mask as the only index array, with a one-element value of another dtype: masked_fill
MASKED = [
    (lambda: (mg.tensor(MASK_ROWS), 1), [[0, 5, 2, 3], [4, 5, 6, 7], [8, 5, 10, 11]]),
    (lambda: (slice(None), mg.tensor([True, False, True, True])),
     [[5, 1, 5, 5], [5, 5, 5, 5], [5, 9, 5, 5]]),
    (lambda: (None, mg.tensor(MASK_ROWS)), [[5] * 4, [4, 5, 6, 7], [5] * 4]),
    (lambda: (mg.tensor(MASK_ROWS), slice(1, None)), [[0, 5, 5, 5], [4, 5, 6, 7], [8, 5, 5, 5]]),
    (lambda: (Ellipsis, mg.tensor([True, False, True, True])),
     [[5, 1, 5, 5], [5, 5, 5, 5], [5, 9, 5, 5]]),
]


@pytest.mark.parametrize("make_index, expected", MASKED)
@pytest.mark.parametrize("value", [mg.tensor(5), mg.tensor([5]), mg.tensor(5.0, dtype="float32"), mg.tensor(5 + 0j)])
def test_one_mask_beside_views_casts_a_one_element_value(make_index, expected, value):
    x = mg.arange(12.0, dtype="float64").reshape(3, 4)
    x[make_index()] = value
    np.testing.assert_array_equal(x.numpy(), expected)


@pytest.mark.parametrize("index", [lambda: mg.tensor(MASK_ROWS), lambda: (mg.tensor(MASK_ROWS), 1),
                                   lambda: (slice(None), mg.tensor([True, False, True, True]))])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_a_complex_value_is_not_masked_into_a_real_tensor(index, dtype):
    """torch: RuntimeError('value cannot be converted to type double without overflow');
    the imaginary part was dropped with only NumPy's ComplexWarning."""
    x = mg.arange(12, dtype=dtype).reshape(3, 4)
    with pytest.raises(RuntimeError, match="cannot be converted"):
        x[index()] = mg.tensor(5j)
    np.testing.assert_array_equal(x.numpy(), np.arange(12).reshape(3, 4))


@pytest.mark.parametrize("index", [lambda: mg.tensor([0, 2]), lambda: (1, mg.tensor([0, 2])),
                                   lambda: mg.tensor(True), lambda: (mg.tensor(True), 1)])
def test_index_arrays_still_refuse_another_dtype(index):
    x = mg.arange(12.0, dtype="float64").reshape(3, 4)
    with pytest.raises(RuntimeError, match="dtypes match"):
        x[index()] = mg.tensor(5)
