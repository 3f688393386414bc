"""Broadcast un-reduction: every input gets a gradient of exactly its own shape,
as an ndarray (0-d for 0-d inputs), never a NumPy scalar."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def ref_sum_to(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Independent NumPy reference for broadcasting's adjoint."""
    a = np.asarray(a)
    lead = a.ndim - len(shape)
    a = a.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and a.shape[i] != 1)
    return np.asarray(a.sum(axis=axes, keepdims=True)).reshape(shape)


def check_grad(t: mg.Tensor, expected: np.ndarray) -> None:
    assert t.grad is not None
    g = t.grad.numpy()
    assert type(g) is np.ndarray, type(g)
    assert g.shape == t.shape
    assert g.dtype == t.dtype
    np.testing.assert_allclose(g, expected, rtol=1e-13, atol=1e-13)


SHAPE_PAIRS = [
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (3, 1)),
    ((2, 1, 3), (1, 4, 1)),
    ((1, 1), (5,)),
    ((1,), ()),
    ((), (2, 3)),
    ((), ()),
    ((4, 0), (4, 1)),
    ((0,), (1,)),
    ((0,), ()),
    ((2, 0, 3), (3,)),
    ((1, 0), (3, 1)),
]

OPS = {
    "add": (lambda x, y: x + y,
            lambda X, Y, G: (G, G)),
    "sub": (lambda x, y: x - y,
            lambda X, Y, G: (G, -G)),
    "mul": (lambda x, y: x * y,
            lambda X, Y, G: (G * Y, G * X)),
    "div": (lambda x, y: x / y,
            lambda X, Y, G: (G / Y, -G * X / Y**2)),
    "pow": (lambda x, y: x**y,
            lambda X, Y, G: (G * Y * X ** (Y - 1), G * X**Y * np.log(X))),
    "maximum": (mg.maximum,
                lambda X, Y, G: (G * (X > Y), G * (X < Y))),
    "minimum": (mg.minimum,
                lambda X, Y, G: (G * (X < Y), G * (X > Y))),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("swap", [False, True])
def test_binary_op_unbroadcasts_to_each_input_shape(op, shapes, swap):
    xs, ys = shapes[::-1] if swap else shapes
    rng = np.random.default_rng(0)
    xv = rng.uniform(0.5, 2.0, size=xs)
    yv = rng.uniform(0.5, 2.0, size=ys)
    fn, ref = OPS[op]
    x, y = mg.tensor(xv, requires_grad=True), mg.tensor(yv, requires_grad=True)
    out = fn(x, y)
    out_shape = np.broadcast_shapes(xs, ys)
    assert out.shape == out_shape
    G = rng.uniform(-1.0, 1.0, size=out_shape)
    out.backward(gradient=G)
    X, Y = np.broadcast_to(xv, out_shape), np.broadcast_to(yv, out_shape)
    gx, gy = ref(X, Y, G)
    check_grad(x, ref_sum_to(gx, xs))
    check_grad(y, ref_sum_to(gy, ys))


def test_where_three_way_broadcast():
    cv = np.array([[True], [False]])  # (2, 1)
    xv = np.array([1.0, 2.0, 3.0])  # (3,)
    yv = np.array(5.0)  # ()
    x, y = mg.tensor(xv, requires_grad=True), mg.tensor(yv, requires_grad=True)
    out = mg.where(mg.tensor(cv), x, y)
    np.testing.assert_array_equal(out.numpy(), np.where(cv, xv, yv))
    G = np.arange(6.0).reshape(2, 3)
    out.backward(gradient=G)
    check_grad(x, G[0])
    check_grad(y, np.array(G[1].sum()))


def test_clip_with_broadcast_tensor_bounds():
    xv = np.array([[-2.0, 0.5, 3.0], [0.2, -0.1, 0.9]])
    lov = np.array([0.0, 0.0, 0.0])
    hiv = np.array(1.0)
    x, lo, hi = (mg.tensor(v, requires_grad=True) for v in (xv, lov, hiv))
    mg.clip(x, lo, hi).sum().backward()
    check_grad(x, ((xv >= 0) & (xv <= 1)).astype(float))
    check_grad(lo, (xv < 0).sum(axis=0).astype(float))
    check_grad(hi, np.array(float((xv > 1).sum())))


@pytest.mark.parametrize("xs, ys", [
    ((2, 1, 3, 4), (5, 4, 2)),
    ((3, 4), (2, 4, 5)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4,)),
    ((4,), (4,)),
    ((2, 0), (0, 3)),
    ((0, 2), (2, 3)),
    ((2, 3, 4), (4, 5)),
    ((2, 3, 0), (0, 4)),
    ((2, 3, 4), (4, 0)),
    ((0, 3, 4), (4, 2)),
])
def test_matmul_batch_broadcast_grads(xs, ys):
    rng = np.random.default_rng(1)
    xv, yv = rng.normal(size=xs), rng.normal(size=ys)
    x, y = mg.tensor(xv, requires_grad=True), mg.tensor(yv, requires_grad=True)
    out = x @ y
    np.testing.assert_allclose(out.numpy(), xv @ yv, rtol=1e-14)
    G = rng.normal(size=out.shape)
    out.backward(gradient=G)
    # reference: promote 1-D operands, broadcast, then sum back
    x2 = xv[None, :] if xv.ndim == 1 else xv
    y2 = yv[:, None] if yv.ndim == 1 else yv
    G2 = np.asarray(G)
    if xv.ndim == 1 and yv.ndim == 1:
        G2 = G2.reshape(1, 1)
    elif xv.ndim == 1:
        G2 = np.expand_dims(G2, -2)
    elif yv.ndim == 1:
        G2 = np.expand_dims(G2, -1)
    gx = ref_sum_to(G2 @ np.swapaxes(y2, -1, -2), x2.shape).reshape(xs)
    gy = ref_sum_to(np.swapaxes(x2, -1, -2) @ G2, y2.shape).reshape(ys)
    check_grad(x, gx)
    check_grad(y, gy)


@pytest.mark.parametrize("axis, keepdims", [
    (None, False), (None, True), (0, False), (-1, True), ((0, 2), False), ((0, -1), True), ((), False),
])
@pytest.mark.parametrize("fn", ["sum", "mean"])
def test_reductions_reexpand(fn, axis, keepdims):
    xv = np.arange(24.0).reshape(2, 3, 4)
    x = mg.tensor(xv, requires_grad=True)
    out = getattr(x, fn)(axis=axis, keepdims=keepdims)
    expected = getattr(np, fn)(xv, axis=axis, keepdims=keepdims)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out.numpy(), expected)
    G = np.arange(float(np.size(expected))).reshape(np.shape(expected)) + 1
    out.backward(gradient=G)
    axes = tuple(range(3)) if axis is None else tuple(np.atleast_1d(axis) % 3) if axis != () else ()
    Gk = G if keepdims else np.expand_dims(G, axes)
    n = np.prod([xv.shape[a] for a in axes]) if fn == "mean" else 1
    check_grad(x, np.broadcast_to(Gk / n, xv.shape))


# ---------------------------------------------------------------- 0-d inputs
ZERO_D = {
    "mul_self": (lambda x: x * x, lambda v: 2 * v),
    "neg": (lambda x: -x, lambda v: -1.0),
    "add_const": (lambda x: x + 1.0, lambda v: 1.0),
    "pow": (lambda x: x**3, lambda v: 3 * v**2),
    "pow_zero": (lambda x: x**0, lambda v: 0.0),
    "rdiv": (lambda x: 1.0 / x, lambda v: -1 / v**2),
    "exp": (mg.exp, np.exp),
    "log": (mg.log, lambda v: 1 / v),
    "log1p": (mg.log1p, lambda v: 1 / (1 + v)),
    "sqrt": (mg.sqrt, lambda v: 0.5 / np.sqrt(v)),
    "sin": (mg.sin, np.cos),
    "cos": (mg.cos, lambda v: -np.sin(v)),
    "tanh": (mg.tanh, lambda v: 1 - np.tanh(v) ** 2),
    "sigmoid": (mg.sigmoid, lambda v: np.exp(-v) / (1 + np.exp(-v)) ** 2),
    "abs": (mg.abs, lambda v: 1.0),
    "maximum": (lambda x: mg.maximum(x, 0.0), lambda v: 1.0),
    "minimum": (lambda x: mg.minimum(x, 0.0), lambda v: 0.0),
    "clip": (lambda x: mg.clip(x, 0.0, 10.0), lambda v: 1.0),
    "where": (lambda x: mg.where(x > 0, x * 2, 0.0), lambda v: 2.0),
    "sum": (mg.sum, lambda v: 1.0),
    "mean": (mg.mean, lambda v: 1.0),
    "max": (mg.max, lambda v: 1.0),
    "min": (mg.min, lambda v: 1.0),
    "prod": (mg.prod, lambda v: 1.0),
    "var": (mg.var, lambda v: 0.0),
    "std": (mg.std, lambda v: 0.0),
    "logsumexp": (mg.logsumexp, lambda v: 1.0),
    "reshape": (lambda x: x.reshape(1, 1).sum(), lambda v: 1.0),
    "expand_dims": (lambda x: mg.expand_dims(x, 0).sum(), lambda v: 1.0),
    "broadcast": (lambda x: mg.broadcast_to(x, (3,)).sum(), lambda v: 3.0),
    "astype": (lambda x: x.astype("float32"), lambda v: 1.0),
    "clone": (mg.clone, lambda v: 1.0),
    "getitem": (lambda x: x[...], lambda v: 1.0),
}


@pytest.mark.parametrize("name", sorted(ZERO_D))
def test_zero_d_input_gets_zero_d_ndarray_grad(name):
    fn, d = ZERO_D[name]
    v = 1.5
    x = mg.tensor(v, dtype="float64", requires_grad=True)
    out = fn(x)
    assert out.shape == ()
    assert type(out._data) is np.ndarray
    out.backward()
    check_grad(x, np.array(d(v)))


def test_zero_d_grads_accumulate_as_arrays():
    x = mg.tensor(2.0, requires_grad=True)
    (x * x).backward()
    (x * x).backward()
    assert type(x.grad._data) is np.ndarray
    assert x.grad.shape == ()
    assert x.grad.item() == 8.0


def test_zero_d_binary_leaves():
    a = mg.tensor(2.0, requires_grad=True)
    b = mg.tensor(3.0, requires_grad=True)
    (a * b + a / b).backward()
    check_grad(a, np.array(3.0 + 1 / 3.0, dtype=np.float32))
    check_grad(b, np.array(2.0 - 2.0 / 9.0, dtype=np.float32))


def test_zero_d_hooks_receive_arrays():
    seen = []
    x = mg.tensor(2.0, requires_grad=True)
    h = x * x
    h.register_hook(lambda g: seen.append(type(g._data)))
    x.register_hook(lambda g: seen.append(type(g._data)))
    (h * h).backward()
    assert seen == [np.ndarray, np.ndarray]


def test_zero_d_explicit_gradient():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    s = x.sum()
    s.backward(gradient=np.float32(3.0))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_reduction_outputs_are_arrays_not_scalars():
    x = mg.tensor([1.0, 2.0, 3.0])
    for out in (x.sum(), x.mean(), x.max(), x.prod(), x.var(), mg.logsumexp(x)):
        assert type(out._data) is np.ndarray and out.shape == ()


def test_size_zero_input_broadcast_against_size_one():
    x = mg.zeros(4, 0, requires_grad=True)
    b = mg.ones(4, 1, requires_grad=True)
    c = mg.ones(0, requires_grad=True)
    (x + b + c).sum().backward()
    check_grad(x, np.zeros((4, 0)))
    check_grad(b, np.zeros((4, 1)))
    check_grad(c, np.zeros((0,)))


def test_expand_to_a_size_that_does_not_fit_is_pytorchs_runtime_error():
    # torch 2.13: torch.zeros(2).expand(3) raises RuntimeError with this message (NumPy's
    # broadcast_to raises ValueError); expanding a size-1 dim and -1 still work
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing "
                                           r"size \(2\) at non-singleton dimension 0"):
        mg.zeros(2).expand(3)
    assert mg.zeros(2, 1).expand(3, 2, -1).shape == (3, 2, 1)
    assert mg.zeros(2, 1).expand(3, 2, 4).shape == (3, 2, 4)


def test_broadcast_shapes_answers_a_size_as_pytorchs():
    # torch 2.13: torch.broadcast_shapes((2, 1), (3,)) is torch.Size([2, 3]), (5, (2, 1)) torch.Size([2, 5]),
    # () torch.Size([]); a plain tuple here made mg.FloatTensor(shape) the 2 numbers [2., 3.] as data
    shape = mg.broadcast_shapes((2, 1), (3,))
    assert type(shape) is mg.Size and shape == (2, 3) and shape.numel() == 6
    assert mg.FloatTensor(shape).shape == (2, 3)
    assert type(mg.broadcast_shapes(5, (2, 1))) is mg.Size and mg.broadcast_shapes(5, (2, 1)) == (2, 5)
    assert type(mg.broadcast_shapes()) is mg.Size and mg.broadcast_shapes() == ()
