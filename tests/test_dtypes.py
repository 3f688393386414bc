"""dtype discipline: float32 stays float32, scalars are weak, ints cannot require grad."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

XV = np.array([[0.5, 1.5, 2.0], [1.0, 3.0, 0.25]])

# Every op family, applied to a (2, 3) input.
FAMILIES = {
    "add": lambda x: x + x,
    "sub_scalar": lambda x: 1 - x,
    "mul": lambda x: x * x,
    "div": lambda x: x / (x + 1),
    "rdiv": lambda x: 2 / x,
    "pow_scalar": lambda x: x**2.5,
    "pow_tensor": lambda x: x**x,
    "rpow": lambda x: 2**x,
    "neg": lambda x: -x,
    "exp": mg.exp,
    "log": mg.log,
    "log1p": mg.log1p,
    "sqrt": mg.sqrt,
    "abs": mg.abs,
    "sin": mg.sin,
    "cos": mg.cos,
    "tanh": mg.tanh,
    "sigmoid": mg.sigmoid,
    "maximum": lambda x: mg.maximum(x, 1.0),
    "minimum": lambda x: mg.minimum(x, x[0]),
    "clip": lambda x: mg.clip(x, 0.75, 2.0),
    "where": lambda x: mg.where(x > 1, x, 0.0),
    "sum": lambda x: x.sum(axis=1),
    "mean": lambda x: x.mean(axis=0),
    "max": lambda x: x.max(axis=1),
    "min": mg.min,
    "prod": lambda x: x.prod(axis=1),
    "var": lambda x: x.var(axis=1),
    "std": lambda x: x.std(axis=0, ddof=1),
    "logsumexp": lambda x: mg.logsumexp(x, axis=1),
    "cumsum": lambda x: mg.cumsum(x, axis=1),
    "matmul": lambda x: x @ x.T,
    "matvec": lambda x: x @ x[0],
    "einsum": lambda x: mg.einsum("ij,ij->i", x, x),
    "reshape": lambda x: x.reshape(3, 2),
    "transpose": lambda x: x.T,
    "broadcast_to": lambda x: mg.broadcast_to(x, (4, 2, 3)),
    "expand_squeeze": lambda x: mg.squeeze(mg.expand_dims(x, 0), 0),
    "concatenate": lambda x: mg.concatenate([x, x], axis=1),
    "stack": lambda x: mg.stack([x, x]),
    "flip": lambda x: mg.flip(x, 1),
    "pad": lambda x: mg.pad(x, 1),
    "getitem_slice": lambda x: x[:, ::-1],
    "getitem_gather": lambda x: x[[0, 0, 1]],
    "getitem_mask": lambda x: x[x > 1],
    "split": lambda x: mg.split(x, 3, axis=1)[1],
    "astype_roundtrip": lambda x: x.astype("float64").astype(x.dtype),
    "clone": mg.clone,
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_gradient_dtype_matches_input(name, dtype):
    x = mg.tensor(XV.astype(dtype), requires_grad=True)
    out = FAMILIES[name](x)
    assert out.dtype == np.dtype(dtype), f"{name} forward changed {dtype} to {out.dtype}"
    out.backward(gradient=np.ones(out.shape, dtype=dtype))
    assert x.grad.dtype == np.dtype(dtype)
    assert type(x.grad._data) is np.ndarray


def test_astype_gradient_comes_back_in_input_dtype():
    x = mg.tensor(XV.astype(np.float32), requires_grad=True)
    y = x.astype("float64") * 2
    assert y.dtype == np.float64
    y.sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))


def test_mixed_float_widths():
    x = mg.tensor([1.0, 2.0], dtype="float32", requires_grad=True)
    y = mg.tensor([3.0, 4.0], dtype="float64", requires_grad=True)
    z = x * y
    assert z.dtype == np.float64
    z.sum().backward()
    assert x.grad.dtype == np.float32 and y.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 2.0])


# ------------------------------------------------------------- weak scalars
WEAK = {
    "py_float": lambda x: x * 0.5,
    "py_float_left": lambda x: 0.5 * x,
    "py_int": lambda x: x + 3,
    "py_bool": lambda x: x * True,
    "np_float64": lambda x: x * np.float64(0.5),
    "np_float64_left": lambda x: np.float64(0.5) * x,
    "np_float64_add": lambda x: x + np.float64(1.0),
    "np_float64_rsub": lambda x: np.float64(1.0) - x,
    "np_float64_div": lambda x: x / np.float64(4.0),
    "np_float64_pow": lambda x: x ** np.float64(2.0),
    "np_int64": lambda x: x * np.int64(2),
    "np_bool": lambda x: x * np.bool_(True),
    "where_np_scalar": lambda x: mg.where(x > 1, x, np.float64(0.0)),
    "clip_np_bounds": lambda x: mg.clip(x, np.float64(0.6), np.float64(2.0)),
    "maximum_np_scalar": lambda x: mg.maximum(x, np.float64(1.0)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", sorted(WEAK))
def test_python_and_numpy_scalars_are_weakly_typed(name, dtype):
    x = mg.tensor(XV.astype(dtype), requires_grad=True)
    out = WEAK[name](x)
    assert out.dtype == np.dtype(dtype), f"{name}: {dtype} became {out.dtype}"
    out.sum().backward()
    assert x.grad.dtype == np.dtype(dtype)


def test_weak_scalar_values_are_right():
    x = mg.tensor([2.0, 4.0])
    np.testing.assert_array_equal((x * np.float64(0.5)).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal((np.float64(10.0) - x).numpy(), [8.0, 6.0])


# ----------------------------------------------------- integer / bool tensors
@pytest.mark.parametrize("data", [[1, 2], [True, False], np.array([1, 2], dtype=np.int32),
                                  np.array([1, 2], dtype=np.uint8)])
def test_integer_and_bool_tensors_cannot_require_grad(data):
    # torch 2.13: RuntimeError 'Only Tensors of floating point and complex dtype can require gradients'
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        mg.tensor(data, requires_grad=True)
    t = mg.tensor(data)
    with pytest.raises(RuntimeError, match=str(t.dtype)):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        t.requires_grad = True
    assert not t.requires_grad


def test_integer_creation_with_requires_grad_rejected():
    with pytest.raises(RuntimeError, match="floating point"):  # PyTorch's type
        mg.zeros(2, dtype="int64", requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        mg.arange(3, requires_grad=True)


def test_integer_ops_produce_constants():
    x = mg.tensor([1, 2, 3])
    for out in (x + 1, x * x, x.sum(), x[::-1], -x):
        assert out.dtype.kind == "i"
        assert not out.requires_grad


def test_argmax_and_casts_to_int_cut_the_tape():
    x = mg.tensor([1.0, 3.0, 2.0], requires_grad=True)
    a = mg.argmax(x)
    assert a.dtype == np.int64 and not a.requires_grad and a.item() == 1
    i = x.astype("int32")
    assert i.dtype == np.int32 and not i.requires_grad


# ----------------------------------------------------- unsupported dtypes
@pytest.mark.parametrize("data,dtype", [([1 + 2j], np.complex64), (np.array([1 + 2j]), np.complex128),
                                        (np.array([1.0], dtype=np.complex64), np.complex64)])
def test_complex_data_keeps_numpy_dtypes_and_python_follows_the_default(data, dtype):
    t = mg.tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(data, dtype=dtype))


def test_complex_scalar_operand_is_weak():
    assert (mg.tensor([1.0]) * (1 + 2j)).dtype == np.complex64
    assert (mg.tensor([1.0], dtype="float64") * (1 + 2j)).dtype == np.complex128
    np.testing.assert_array_equal((mg.tensor([2.0]) * 1j).numpy(), [2j])


@pytest.mark.parametrize("dtype", ["float128", "complex256", "object", "datetime64[s]"])
def test_unsupported_requested_dtypes(dtype):
    try:
        np.dtype(dtype)
    except TypeError:
        pytest.skip(f"{dtype} not available on this platform")
    with pytest.raises(TypeError, match="unsupported dtype|not a dtype"):
        mg.tensor([1.0], dtype=dtype)
    with pytest.raises(TypeError, match="unsupported dtype|not a dtype"):
        mg.tensor([1.0]).astype(dtype)


def test_object_data_rejected():
    with pytest.raises(TypeError, match="Could not infer dtype of str"):
        mg.tensor([1.0, "a", None])


# ------------------------------------------------------- creation dtypes
def test_python_data_dtypes():
    assert mg.tensor([1.0]).dtype == np.float32
    assert mg.tensor(1.0).dtype == np.float32
    assert mg.tensor([1, 2]).dtype == np.int64
    assert mg.tensor(3).dtype == np.int64
    assert mg.tensor([True]).dtype == np.bool_
    assert mg.tensor([1, 2.5]).dtype == np.float32


@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "int8", "uint8", "bool"])
def test_numpy_arrays_keep_their_dtype(dtype):
    a = np.zeros(3, dtype=dtype)
    assert mg.tensor(a).dtype == np.dtype(dtype)
    assert mg.tensor(a[0]).dtype == np.dtype(dtype)  # NumPy scalar too


def test_explicit_dtype():
    t = mg.tensor([1, 2], dtype="float64")
    assert t.dtype == np.float64
    t = mg.tensor(np.array([1.5, 2.5]), dtype=mg.float32)
    assert t.dtype == np.float32
    t = mg.tensor([1.7, -1.7], dtype="int32")
    np.testing.assert_array_equal(t.numpy(), [1, -1])


def test_default_dtype_can_be_changed_and_restored():
    assert mg.get_default_dtype() == np.float32
    mg.set_default_dtype("float64")
    try:
        assert mg.tensor([1.0]).dtype == np.float64
        assert mg.zeros(2).dtype == np.float64
        assert mg.rand(2).dtype == np.float64
        assert mg.tensor([1]).dtype == np.int64
    finally:
        mg.set_default_dtype("float32")
    assert mg.tensor([1.0]).dtype == np.float32
    with pytest.raises(TypeError, match="float dtype"):
        mg.set_default_dtype("int32")


def test_tensor_copies_its_input():
    a = np.array([1.0, 2.0])
    t = mg.tensor(a)
    a[0] = 99.0
    assert t.data[0] == 1.0
    assert not np.shares_memory(t.numpy(), a)

    src = mg.tensor([1.0, 2.0])
    t2 = mg.tensor(src)
    assert not np.shares_memory(t2.numpy(), src.numpy())
    src.data[0] = 5.0
    assert t2.data[0] == 1.0

    lst = [1.0, 2.0]
    t3 = mg.tensor(lst)
    lst[0] = 7.0
    assert t3.data[0] == 1.0


def test_tensor_from_tensor_does_not_keep_history():
    x = mg.tensor([1.0], requires_grad=True)
    y = mg.tensor(x * 2)
    assert y.is_leaf and not y.requires_grad
