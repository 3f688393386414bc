"""The Tensor surface: attributes, conversions, operators and method sugar."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def leaf(values, dtype="float64"):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


# ---------------------------------------------------------------- attributes
def test_basic_attributes():
    x = mg.tensor(A.astype(np.float32))
    assert x.shape == (2, 3)
    assert x.ndim == 2
    assert x.size == 6
    assert x.dtype == np.float32
    assert x.device == "cpu"
    assert str(x.device) == "cpu"
    assert x.device is mg.get_device("cpu")
    assert x.nbytes == 24 and x.itemsize == 4


def test_zero_d_attributes():
    x = mg.tensor(3.5)
    assert x.shape == () and x.ndim == 0 and x.size == 1


def test_data_is_a_tensor_sharing_memory_with_no_history():
    x = mg.tensor(A, requires_grad=True)
    d = x.data
    assert isinstance(d, mg.Tensor) and not d.requires_grad and d.grad_fn is None and d.is_leaf
    assert np.shares_memory(d.numpy(), x.numpy())
    np.testing.assert_array_equal(d.numpy(), A)
    y = (x * 2).data
    assert y.grad_fn is None and not y.requires_grad


def test_numpy_is_a_read_only_view():
    x = mg.tensor(A)
    n = x.numpy()
    assert type(n) is np.ndarray
    assert np.shares_memory(n, x.numpy())
    assert not n.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        n[0, 0] = 10.0
    c = n.copy()
    c[0, 0] = 10.0  # a copy is writable and does not touch the tensor
    assert x.data[0, 0] == 1.0


def test_item_and_python_conversions():
    assert mg.tensor([3.5]).item() == 3.5
    assert type(mg.tensor([3.5]).item()) is float
    assert type(mg.tensor(3).item()) is int
    assert mg.tensor([[7]]).item() == 7
    assert float(mg.tensor(2.5)) == 2.5
    assert int(mg.tensor([3])) == 3
    assert bool(mg.tensor([0.0])) is False
    assert bool(mg.tensor(1.0)) is True
    assert mg.tensor(A).tolist() == A.tolist()
    with pytest.raises(ValueError, match=r"one element.*\(2,\)"):
        mg.tensor([1.0, 2.0]).item()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(mg.ones(2))


def test_is_leaf_and_requires_grad():
    x = leaf([1.0, 2.0])
    c = mg.tensor([1.0, 2.0])
    assert x.is_leaf and x.requires_grad and x.grad_fn is None
    assert c.is_leaf and not c.requires_grad
    y = x * 2
    assert not y.is_leaf and y.requires_grad and y.grad_fn is not None
    z = c * 2
    assert z.is_leaf and not z.requires_grad
    with mg.no_grad():
        w = x * 2
    assert w.is_leaf and not w.requires_grad


def test_requires_grad_underscore_returns_self():
    x = mg.tensor([1.0, 2.0])
    assert x.requires_grad_() is x
    assert x.requires_grad
    assert x.requires_grad_(False) is x
    assert not x.requires_grad


def test_requires_grad_cannot_be_turned_off_on_non_leaf():
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False


def test_detach_shares_memory_and_cuts_the_tape():
    x = leaf([1.0, 2.0])
    y = x * 3
    d = y.detach()
    assert np.shares_memory(d.numpy(), y.numpy())
    assert not d.requires_grad and d.is_leaf
    z = (d * x).sum()  # only the direct path to x remains
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 6.0])


def test_grad_setter_validates():
    x = mg.ones(2)
    with pytest.raises(RuntimeError, match=r"size '\[3\]' to a tensor of size '\[2\]'"):  # PyTorch's
        x.grad = mg.ones(3)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = np.ones(2)
    x.grad = mg.full((2,), 5.0)
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])
    x.grad = None
    assert x.grad is None


# ------------------------------------------------------------------ operators
def test_binary_operators_values_and_grads():
    xv, yv = np.array([1.0, 2.0, 4.0]), np.array([3.0, -1.0, 0.5])
    cases = [
        (lambda x, y: x + y, xv + yv, np.ones(3), np.ones(3)),
        (lambda x, y: x - y, xv - yv, np.ones(3), -np.ones(3)),
        (lambda x, y: x * y, xv * yv, yv, xv),
        (lambda x, y: x / y, xv / yv, 1 / yv, -xv / yv**2),
        (lambda x, y: x**y, xv**yv, yv * xv ** (yv - 1), xv**yv * np.log(xv)),
    ]
    for fn, value, gx, gy in cases:
        x, y = leaf(xv), leaf(yv)
        out = fn(x, y)
        np.testing.assert_allclose(out.numpy(), value, rtol=1e-15)
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-15)
        np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-15)


def test_matmul_operator():
    W = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    v = np.array([0.5, -1.0])
    w, x = leaf(W), leaf(v)
    out = w @ x
    np.testing.assert_array_equal(out.numpy(), W @ v)
    out.backward(gradient=np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(w.grad.numpy(), np.outer([1.0, 2.0, 3.0], v))
    np.testing.assert_array_equal(x.grad.numpy(), W.T @ [1.0, 2.0, 3.0])


def test_unary_operators():
    x = leaf([1.0, -2.0])
    neg = -x
    np.testing.assert_array_equal(neg.numpy(), [-1.0, 2.0])
    neg.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, -1.0])
    assert +x is x
    np.testing.assert_array_equal(abs(x).numpy(), [1.0, 2.0])


def test_reflected_operators_with_python_scalars():
    xv = np.array([1.0, 2.0])
    cases = [
        (lambda x: 3 + x, 3 + xv, np.ones(2)),
        (lambda x: 3 - x, 3 - xv, -np.ones(2)),
        (lambda x: 3 * x, 3 * xv, 3 * np.ones(2)),
        (lambda x: 2 / x, 2 / xv, -2 / xv**2),
        (lambda x: 3**x, 3**xv, 3**xv * np.log(3)),
    ]
    for fn, value, grad in cases:
        x = leaf(xv)
        out = fn(x)
        assert isinstance(out, mg.Tensor)
        np.testing.assert_allclose(out.numpy(), value, rtol=1e-15)
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-15)


def test_reflected_operators_with_numpy_arrays_on_the_left():
    xv = np.array([1.0, 2.0])
    a = np.array([10.0, 20.0])
    cases = [
        (lambda x: a + x, a + xv, np.ones(2)),
        (lambda x: a - x, a - xv, -np.ones(2)),
        (lambda x: a * x, a * xv, a),
        (lambda x: a / x, a / xv, -a / xv**2),
    ]
    for fn, value, grad in cases:
        x = leaf(xv)
        out = fn(x)
        # NumPy must defer to the Tensor's reflected operator, not build an object array
        assert isinstance(out, mg.Tensor)
        np.testing.assert_allclose(out.numpy(), value, rtol=1e-15)
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-15)
    M = np.array([[1.0, 0.0], [2.0, 1.0]])
    x = leaf(xv)
    out = M @ x
    assert isinstance(out, mg.Tensor)
    np.testing.assert_array_equal(out.numpy(), M @ xv)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), M.T @ np.ones(2))


def test_reflected_operators_with_numpy_scalars_on_the_left():
    x = leaf([1.0, 2.0], dtype="float32")
    out = np.float32(2.0) * x
    assert isinstance(out, mg.Tensor)
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    out = np.float64(5.0) - x
    assert isinstance(out, mg.Tensor)
    np.testing.assert_array_equal(out.numpy(), [4.0, 3.0])


def test_comparisons_return_bool_tensors_without_grad():
    x = leaf([1.0, 2.0, 3.0])
    y = mg.tensor([3.0, 2.0, 1.0])
    cases = [
        (x < y, [True, False, False]),
        (x <= y, [True, True, False]),
        (x > y, [False, False, True]),
        (x >= y, [False, True, True]),
        (x == y, [False, True, False]),
        (x != y, [True, False, True]),
        (x > 1.5, [False, True, True]),
        (2.0 == x, [False, True, False]),
    ]
    for out, expected in cases:
        assert isinstance(out, mg.Tensor)
        assert out.dtype == np.bool_
        assert not out.requires_grad and out.is_leaf
        np.testing.assert_array_equal(out.numpy(), expected)


def test_getitem():
    x = leaf(A)
    np.testing.assert_array_equal(x[1].numpy(), A[1])
    np.testing.assert_array_equal(x[:, 1:].numpy(), A[:, 1:])
    np.testing.assert_array_equal(x[-1, -1].numpy(), A[-1, -1])
    np.testing.assert_array_equal(x[..., None].numpy(), A[..., None])
    x[1, ::2].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0], [1, 0, 1]])


def test_methods_mirror_functions():
    x = mg.tensor(A)
    np.testing.assert_array_equal(x.sum(axis=1).numpy(), A.sum(axis=1))
    np.testing.assert_array_equal(x.sum().numpy(), A.sum())
    np.testing.assert_array_equal(x.mean(axis=0).numpy(), A.mean(axis=0))
    np.testing.assert_array_equal(x.max(axis=0).numpy(), A.max(axis=0))
    np.testing.assert_array_equal(x.min().numpy(), A.min())
    np.testing.assert_array_equal(x.prod(axis=1).numpy(), A.prod(axis=1))
    np.testing.assert_array_equal(x.reshape(3, 2).numpy(), A.reshape(3, 2))
    np.testing.assert_array_equal(x.reshape((3, 2)).numpy(), A.reshape(3, 2))
    np.testing.assert_array_equal(x.reshape(-1).numpy(), A.reshape(-1))
    np.testing.assert_array_equal(x.T.numpy(), A.T)
    np.testing.assert_array_equal(x.transpose().numpy(), A.T)
    np.testing.assert_array_equal(x.transpose(1, 0).numpy(), A.T)
    np.testing.assert_array_equal(x.exp().numpy(), np.exp(A))
    np.testing.assert_array_equal(x.log().numpy(), np.log(A))
    np.testing.assert_array_equal(x.sqrt().numpy(), np.sqrt(A))
    np.testing.assert_array_equal(x.var(axis=1, ddof=1).numpy(), A.var(axis=1, ddof=1))
    np.testing.assert_array_equal(x.cumsum(axis=1).numpy(), A.cumsum(axis=1))
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), A.argmax(axis=1))
    np.testing.assert_array_equal(x.clip(2.0, 5.0).numpy(), A.clip(2.0, 5.0))
    np.testing.assert_array_equal(x.swapaxes(0, 1).numpy(), A.swapaxes(0, 1))
    np.testing.assert_array_equal(x.flip(1).numpy(), A[:, ::-1])
    assert x.astype("float32").dtype == np.float32
    c = x.clone()
    assert not np.shares_memory(c.numpy(), x.numpy())
    np.testing.assert_array_equal(c.numpy(), A)


def test_method_gradients():
    x = leaf(A)
    (x.T.reshape(6) * mg.tensor(np.arange(6.0))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


def test_len_and_iteration():
    x = leaf(A)
    assert len(x) == 2
    rows = list(x)
    assert len(rows) == 2
    for r, expected in zip(rows, A):
        assert isinstance(r, mg.Tensor)
        np.testing.assert_array_equal(r.numpy(), expected)
    (rows[0] * rows[1]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), A[::-1])
    with pytest.raises(TypeError, match="0-d"):
        len(mg.tensor(1.0))
    with pytest.raises(TypeError):
        list(mg.tensor(1.0))


def test_repr():
    assert repr(mg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(mg.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(mg.tensor(1.5)) == "tensor(1.5)"
    assert repr(mg.tensor([1.0], dtype="float64")) == "tensor([1.], dtype=float64)"
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=Mul)"
