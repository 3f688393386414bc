"""Reverse mode: the backward loop, accumulation, freed graphs, higher order."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import minigrad_ckpt as mg


def leaf(values, dtype="float64"):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


# ----------------------------------------------------------- the basic loop
def test_polynomial_gradient():
    xv = np.array([-1.5, 0.0, 2.0])
    x = leaf(xv)
    y = (3 * x**2 - 2 * x + 1).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * xv - 2, rtol=1e-15)


def test_scalar_output_default_gradient_is_one():
    x = leaf(2.0)
    (x * x).backward()
    assert x.grad.data == 4.0


def test_backward_of_a_leaf_itself():
    x = leaf([1.0, 2.0])
    x.backward(gradient=np.array([3.0, 4.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])


def test_vector_jacobian_product_with_explicit_gradient():
    xv = np.array([1.0, 2.0, 3.0])
    x = leaf(xv)
    y = x * x
    g = np.array([1.0, 10.0, 100.0])
    y.backward(gradient=g)
    np.testing.assert_array_equal(x.grad.numpy(), 2 * xv * g)


def test_gradient_may_be_a_tensor():
    x = leaf([1.0, 2.0])
    (x * 3).backward(gradient=mg.tensor([1.0, 2.0], dtype="float64"))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 6.0])


def test_gradient_is_cast_to_the_output_dtype():
    x = leaf([1.0, 2.0], dtype="float32")
    (x * 3).backward(gradient=np.array([1.0, -1.0]))  # float64 gradient
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, -3.0])


def test_long_chain_has_no_recursion_error():
    n = 20_000
    assert n > sys.getrecursionlimit()
    x = leaf(0.5)
    y = x
    for _ in range(n):
        y = mg.sin(y)
    y.backward()
    # reference: chain rule by hand, iteratively
    v, d = 0.5, 1.0
    for _ in range(n):
        d *= np.cos(v)
        v = np.sin(v)
    np.testing.assert_allclose(y.numpy(), v, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), d, rtol=1e-9)


def test_long_chain_of_adds_exact_and_collectable():
    x = leaf([1.0, 2.0])
    y = x
    for _ in range(20_000):
        y = y + 1.0
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(y.numpy(), [20_001.0, 20_002.0])
    del y
    gc.collect()  # freeing a 20k-deep graph must not recurse either


def test_interior_nodes_get_no_grad_attribute():
    x = leaf([1.0, 2.0])
    h = x * 2
    (h * h).sum().backward()
    with pytest.warns(UserWarning, match="not a leaf"):  # as PyTorch's
        assert h.grad is None
    np.testing.assert_array_equal(x.grad.numpy(), 8 * np.array([1.0, 2.0]))


def test_constants_get_no_gradient():
    x = leaf([1.0, 2.0])
    c = mg.tensor([3.0, 4.0], dtype="float64")
    (x * c).sum().backward()
    assert c.grad is None


def test_no_grad_block_contributes_nothing():
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        frozen = x * 10
    y = (x * frozen).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 20.0])


def test_mixed_float_and_integer_operands():
    x = leaf([1.0, 2.0])
    k = mg.tensor([3, 4])
    (x * k).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])
    assert k.grad is None


def test_multiple_roots():
    x = leaf([1.0, 2.0])
    y1 = (x * x).sum()
    y2 = x * 3
    mg.backward([y1, y2], [None, np.array([1.0, -1.0])])
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.array([1.0, 2.0]) + [3.0, -3.0])


def test_backward_on_tensor_without_history_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.tensor([1.0]).sum().backward()
    with mg.no_grad():
        y = leaf([1.0]).sum()
    with pytest.raises(RuntimeError, match="no_grad"):
        y.backward()


# -------------------------------------------------------------- accumulation
def test_gradients_accumulate_across_backward_calls():
    xv = np.array([1.0, -2.0])
    x = leaf(xv)
    (x * x).sum().backward()
    first = x.grad.numpy().copy()
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * first)
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * first + 3)


def test_grad_can_be_reset_between_steps():
    x = leaf([1.0])
    (x * 5).sum().backward()
    x.grad = None
    (x * 7).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [7.0])


def test_second_backward_through_freed_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time") as exc:
        y.backward()
    assert "retain_graph=True" in str(exc.value)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])  # the failed call added nothing


def test_retain_graph_second_result_exactly_doubles():
    xv = np.array([0.3, 1.7, -2.2])
    x = leaf(xv)
    y = (mg.exp(x) * mg.sin(x)).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * first)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


# ------------------------------------------------------ diamonds and reuse
def test_diamond_b_equals_a_plus_a():
    a = leaf([3.0, -1.0])
    b = a + a
    c = b * b
    c.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), 8 * np.array([3.0, -1.0]))


def test_same_tensor_used_twice():
    x = leaf([3.0])
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0])


def test_reused_interior_node():
    xv = np.array([0.5, 2.0])
    x = leaf(xv)
    h = x * x
    y = (h * h + h + mg.exp(h)).sum()
    y.backward()
    hv = xv * xv
    np.testing.assert_allclose(x.grad.numpy(), (2 * hv + 1 + np.exp(hv)) * 2 * xv, rtol=1e-14)


def test_interior_grads_not_double_counted_across_calls():
    x = leaf([2.0])
    h = x * x
    y = (h + h).sum()
    y.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), [8.0])
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [16.0])


def test_wide_diamond():
    x = leaf([1.0, 2.0])
    branches = [x * float(k) for k in range(1, 11)]
    total = branches[0]
    for b in branches[1:]:
        total = total + b
    total.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [55.0, 55.0])


# ------------------------------------------------------------- higher order
def _second_derivative(fn, xv):
    x = leaf(xv)
    (g,) = mg.grad(fn(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (g2,) = mg.grad(g.sum(), x)
    return g.numpy(), g2.numpy()


XV = np.array([0.3, 0.7, 1.2, 2.5])
SMOOTH = {
    "cube": (lambda x: x**3, lambda v: 3 * v**2, lambda v: 6 * v),
    "sin": (mg.sin, np.cos, lambda v: -np.sin(v)),
    "cos": (mg.cos, lambda v: -np.sin(v), lambda v: -np.cos(v)),
    "exp": (mg.exp, np.exp, np.exp),
    "log": (mg.log, lambda v: 1 / v, lambda v: -1 / v**2),
    "log1p": (mg.log1p, lambda v: 1 / (1 + v), lambda v: -1 / (1 + v) ** 2),
    "sqrt": (mg.sqrt, lambda v: 0.5 / np.sqrt(v), lambda v: -0.25 * v**-1.5),
    "reciprocal": (lambda x: 1 / x, lambda v: -1 / v**2, lambda v: 2 / v**3),
    "tanh": (mg.tanh, lambda v: 1 - np.tanh(v) ** 2,
             lambda v: -2 * np.tanh(v) * (1 - np.tanh(v) ** 2)),
    "sigmoid": (mg.sigmoid,
                lambda v: (s := 1 / (1 + np.exp(-v))) * (1 - s),
                lambda v: (s := 1 / (1 + np.exp(-v))) * (1 - s) * (1 - 2 * s)),
    "x_pow_x": (lambda x: x**x, lambda v: v**v * (np.log(v) + 1),
                lambda v: v**v * ((np.log(v) + 1) ** 2 + 1 / v)),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_second_derivatives_of_smooth_ops(name):
    fn, d1, d2 = SMOOTH[name]
    g, g2 = _second_derivative(fn, XV)
    np.testing.assert_allclose(g, d1(XV), rtol=1e-12)
    np.testing.assert_allclose(g2, d2(XV), rtol=1e-12)


def test_third_derivative():
    x = leaf([1.5, -2.0])
    (g1,) = mg.grad((x**4).sum(), x, create_graph=True)
    (g2,) = mg.grad(g1.sum(), x, create_graph=True)
    (g3,) = mg.grad(g2.sum(), x)
    np.testing.assert_allclose(g1.numpy(), 4 * np.array([1.5, -2.0]) ** 3, rtol=1e-15)
    np.testing.assert_allclose(g2.numpy(), 12 * np.array([1.5, -2.0]) ** 2, rtol=1e-15)
    np.testing.assert_allclose(g3.numpy(), 24 * np.array([1.5, -2.0]), rtol=1e-15)


def test_hessian_of_quadratic_form():
    A = np.array([[1.0, 2.0, 0.5], [3.0, 4.0, -1.0], [0.0, 2.0, 1.0]])
    xv = np.array([1.0, -1.0, 2.0])
    x = leaf(xv)
    f = x @ (mg.tensor(A) @ x)
    (g,) = mg.grad(f, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), (A + A.T) @ xv, rtol=1e-15)
    H = np.stack([mg.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(3)])
    np.testing.assert_allclose(H, A + A.T, rtol=1e-15)


def test_hessian_of_tanh_layer():
    W = np.array([[0.2, -0.4], [0.7, 0.1], [-0.3, 0.5]])
    xv = np.array([0.6, -1.1])
    x = leaf(xv)
    f = mg.tanh(mg.tensor(W) @ x).sum()
    (g,) = mg.grad(f, x, create_graph=True)
    t = np.tanh(W @ xv)
    np.testing.assert_allclose(g.numpy(), W.T @ (1 - t**2), rtol=1e-13)
    H = np.stack([mg.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(2)])
    expected = W.T @ np.diag(-2 * t * (1 - t**2)) @ W
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-15)


def test_mixed_partials_of_matmul_in_both_operands():
    Av, Bv = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 1.0]])
    a, b = leaf(Av), leaf(Bv)
    f = ((a @ b) ** 2).sum()
    ga, gb = mg.grad(f, [a, b], create_graph=True)
    np.testing.assert_allclose(ga.numpy(), 2 * (Av @ Bv) @ Bv.T, rtol=1e-14)
    np.testing.assert_allclose(gb.numpy(), 2 * Av.T @ (Av @ Bv), rtol=1e-14)
    # d/db of sum(ga) where ga = 2 (a b) b^T: verified against a finite difference
    (gab,) = mg.grad(ga.sum(), b)
    eps = 1e-6
    fd = np.zeros_like(Bv)
    for i in range(2):
        for j in range(2):
            bp, bm = Bv.copy(), Bv.copy()
            bp[i, j] += eps
            bm[i, j] -= eps
            fd[i, j] = ((2 * (Av @ bp) @ bp.T).sum() - (2 * (Av @ bm) @ bm.T).sum()) / (2 * eps)
    np.testing.assert_allclose(gab.numpy(), fd, rtol=1e-7)


def test_backward_create_graph_makes_grad_differentiable():
    x = leaf([2.0])
    (x**3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    np.testing.assert_array_equal(x.grad.numpy(), [12.0])
    (g2,) = mg.grad(x.grad.sum(), x)
    np.testing.assert_array_equal(g2.numpy(), [12.0])  # 6 x


def test_grad_of_grad_through_backward_accumulates():
    x = leaf([2.0])
    (x**3).sum().backward(create_graph=True)
    x.grad.sum().backward()  # adds d(3x^2)/dx = 6x = 12 to x.grad = 12
    np.testing.assert_array_equal(x.grad.numpy(), [24.0])


def test_without_create_graph_grad_is_constant():
    x = leaf([2.0])
    (x**3).sum().backward()
    assert not x.grad.requires_grad
    (g,) = mg.grad((x**3).sum(), x)
    assert not g.requires_grad and g.is_leaf


# ------------------------------------------------- shape ops differentiate
def test_shape_op_gradients():
    Av = np.arange(6.0).reshape(2, 3)
    x = leaf(Av)
    w = np.arange(12.0).reshape(4, 3)
    y = mg.concatenate([x, x[::-1]], axis=0)  # (4, 3)
    (y * mg.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w[:2] + w[2:][::-1])

    x = leaf(Av)
    s = mg.stack([x, 2 * x], axis=1)  # (2, 2, 3)
    s.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 3.0))

    x = leaf(Av)
    parts = mg.split(x, [1], axis=1)
    (parts[0].sum() * 2 + parts[1].sum() * 5).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 5, 5], [2, 5, 5]])

    x = leaf(Av)
    mg.pad(x, ((1, 0), (0, 2))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))

    x = leaf(Av)
    (mg.cumsum(x, axis=1) * mg.tensor(np.array([1.0, 10.0, 100.0]))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[111, 110, 100], [111, 110, 100]])


def test_einsum_gradients():
    Av, Bv = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4) - 5
    a, b = leaf(Av), leaf(Bv)
    out = mg.einsum("ij,jk->ik", a, b)
    np.testing.assert_array_equal(out.numpy(), Av @ Bv)
    G = np.arange(8.0).reshape(2, 4)
    out.backward(gradient=G)
    np.testing.assert_array_equal(a.grad.numpy(), G @ Bv.T)
    np.testing.assert_array_equal(b.grad.numpy(), Av.T @ G)
    m = leaf(np.arange(9.0).reshape(3, 3))
    mg.einsum("ii->", m).backward()
    np.testing.assert_array_equal(m.grad.numpy(), np.eye(3))


def test_a_gradient_through_a_transpose_is_handed_over_without_a_copy():
    """``h @ W.T`` used to give W a transposed view that backward copied once more.
    Now the matmul produces the gradient in W.T's layout, so W gets a row-major array that
    only it holds; a gradient someone else still references (a hook kept it, or a second
    leaf shares it) is still copied, so no two gradients ever share memory."""
    rng = np.random.default_rng(0)
    w = mg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    h = mg.tensor(rng.standard_normal((5, 3)))
    (mg.tanh(h @ w.T)).sum().backward()
    hv, wv = h.numpy(), w.numpy()
    expected = ((1 - np.tanh(hv @ wv.T) ** 2).T @ hv)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12)
    assert w.grad.numpy().flags.c_contiguous
    assert w.grad.numpy().base is not None  # the product's own buffer, not a copy of it

    kept = []
    w.grad = None
    w.register_hook(lambda g: kept.append(g) or g)
    (mg.tanh(h @ w.T)).sum().backward()
    assert not np.shares_memory(kept[0], w.grad.numpy())

    a = mg.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    b = mg.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    (a.T + b.T).sum().backward()  # both gradients are views of one array
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
