"""``mg.func`` transforms of functions that close over tensors, nested in each other and in the tape.

Every transform keeps the history (and the tangents) of every tensor its
function reads, passed or closed over, so an outer transform, ``mg.grad`` or
``.backward()`` sees the whole dependence.  Each derivative here is checked
against float64 central differences of the whole program.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

RNG = np.random.default_rng(7)


def t64(values, requires_grad=False):
    return mg.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def central_jacobian(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d fn / d x by central differences; ``fn`` maps a float64 array to an array."""
    x = np.array(x, dtype=np.float64)
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = eps
        plus = np.asarray(fn((x.reshape(-1) + e).reshape(x.shape)), dtype=np.float64)
        minus = np.asarray(fn((x.reshape(-1) - e).reshape(x.shape)), dtype=np.float64)
        cols.append(((plus - minus) / (2 * eps)).reshape(-1))
    out_shape = np.asarray(fn(x)).shape
    return np.stack(cols, axis=-1).reshape(out_shape + x.shape)


# ---------------------------------------------------------------------------
# The reproducers
# ---------------------------------------------------------------------------
def test_jacrev_of_a_function_closing_over_its_argument_in_an_inner_grad():
    x = t64([0.5, 1.5, -0.7])

    def f(a):  # a * d/dy (a . y) = a * a
        return a * F.grad(lambda y: (a * y).sum())(mg.ones_like(a))

    for jac in (F.jacrev, F.jacfwd, F.jacobian):
        np.testing.assert_allclose(jac(f)(x).numpy(), np.diag(2 * x.numpy()), rtol=1e-14)


def test_a_gradient_penalty_trains_the_parameter_it_closes_over():
    x = t64([0.5, 1.5, -0.7])
    wv = np.array([0.3, -0.2, 0.9])
    w = t64(wv, requires_grad=True)
    g = F.grad(lambda t: mg.tanh(t * w).sum())(x)
    assert g.requires_grad
    (g * g).sum().backward()

    def penalty(w_):
        gg = w_ * (1 - np.tanh(x.numpy() * w_) ** 2)
        return (gg * gg).sum()

    np.testing.assert_allclose(w.grad.numpy(), central_jacobian(penalty, wv), rtol=1e-7)


def test_an_inner_grad_of_a_closure_under_grad_and_jvp():
    one, two = t64(1.0), t64(2.0)

    def h(a):  # a * d/dy (a * y) = a ** 2
        return a * F.grad(lambda y: a * y)(two)

    assert F.grad(h)(one).item() == 2.0
    assert F.jvp(h, (one,), (one,))[1].item() == 2.0


def test_forward_mode_over_mg_grad_carries_the_tangent_of_a_saved_constant():
    one = t64(1.0)

    def f(a):  # a * d/dy (a * y) = a ** 2
        y = mg.tensor(2.0, dtype="float64", requires_grad=True)
        (g,) = mg.grad(a * y, [y], create_graph=True)
        return a * g

    assert F.jvp(f, (one,), (one,))[1].item() == 2.0
    assert F.jacfwd(f)(one).item() == 2.0
    assert F.grad(f)(one).item() == 2.0


def test_jacrev_of_a_module_is_differentiable_in_its_parameters():
    mg.manual_seed(0)
    lin = mg.nn.Linear(3, 2, dtype="float64")
    x = t64([0.4, -1.1, 0.8])
    for jac in (F.jacrev, F.jacfwd):
        lin.zero_grad()
        J = jac(lambda a: mg.tanh(lin(a)))(x)
        assert J.requires_grad
        (J ** 2).sum().backward()
        w0, b0 = lin.weight.numpy().copy(), lin.bias.numpy().copy()

        def loss(wf, b=b0):
            z = np.tanh(wf.reshape(2, 3) @ x.numpy() + b)
            return (((1 - z ** 2)[:, None] * wf.reshape(2, 3)) ** 2).sum()

        np.testing.assert_allclose(lin.weight.grad.numpy().reshape(-1),
                                   central_jacobian(loss, w0.reshape(-1)), rtol=1e-6)


def test_results_whose_history_stays_inside_are_plain():
    x = t64([0.5, 1.5])
    w = t64([1.0, 2.0], requires_grad=True)
    g = F.grad(lambda a: (a * a).sum() + (w * w).sum())(x)  # 2a: w's part does not reach it
    assert not g.requires_grad
    out, fn = F.vjp(lambda a: a * 3.0, x)
    assert not out.requires_grad and not fn(mg.ones_like(out))[0].requires_grad
    with mg.no_grad():
        assert not F.grad(lambda a: (a * w).sum())(x).requires_grad


# ---------------------------------------------------------------------------
# Every inner transform under every outer one
# ---------------------------------------------------------------------------
Y0 = np.array([0.3, -0.6])
V0 = np.array([1.0, -0.5])


def _field(a, y):  # the inner function: closes over a, differentiated in y
    return mg.sin(a * y) * y + a


def _field_np(a, y):
    return np.sin(a * y) * y + a


def _scalar(a, y):
    return (mg.sin(a * y) * y).sum() + (a * y * y).sum()


INNER = {
    # name: (mg program of the closed-over a, the same in NumPy via finite differences)
    "grad": lambda a: F.grad(lambda y: _scalar(a, y))(t64(Y0)),
    "value_and_grad": lambda a: (lambda vg: vg[0] * vg[1])(
        F.value_and_grad(lambda y: _scalar(a, y))(t64(Y0))),
    "vjp": lambda a: (lambda res: res[0] + res[1](t64(V0))[0])(F.vjp(lambda y: _field(a, y), t64(Y0))),
    "jacrev": lambda a: F.jacrev(lambda y: _field(a, y))(t64(Y0)).sum(axis=0),
    "jacfwd": lambda a: F.jacfwd(lambda y: _field(a, y))(t64(Y0)).sum(axis=1),
    "hessian": lambda a: F.hessian(lambda y: _scalar(a, y))(t64(Y0)).sum(axis=0),
    "hvp": lambda a: F.hvp(lambda y: _scalar(a, y), (t64(Y0),), (t64(V0),))[1][0],
    "linearize": lambda a: (lambda res: res[0] * res[1](t64(V0)))(F.linearize(lambda y: _field(a, y), t64(Y0))),
    "jvp": lambda a: (lambda res: res[0] * res[1])(F.jvp(lambda y: _field(a, y), (t64(Y0),), (t64(V0),))),
}


def _inner_np(name, a):
    """The same inner results by central differences in y (the reference)."""
    y0 = Y0

    def scalar(y):
        return (np.sin(a * y) * y).sum() + (a * y * y).sum()

    if name == "grad":
        return central_jacobian(scalar, y0, 1e-5)
    if name == "value_and_grad":
        return scalar(y0) * central_jacobian(scalar, y0, 1e-5)
    if name in ("vjp", "jacrev", "jacfwd", "linearize", "jvp"):
        J = central_jacobian(lambda y: _field_np(a, y), y0, 1e-5)
        return {"vjp": _field_np(a, y0) + V0 @ J, "jacrev": J.sum(axis=0), "jacfwd": J.sum(axis=1),
                "linearize": _field_np(a, y0) * (J @ V0), "jvp": _field_np(a, y0) * (J @ V0)}[name]
    H = central_jacobian(lambda y: central_jacobian(scalar, y, 1e-4), y0, 1e-4)
    return H.sum(axis=0) if name == "hessian" else H @ V0


A0 = np.array([0.7, -1.2])


def _outer_program(inner):
    return lambda a: (inner(a) * mg.cos(a)).sum()


def _expected_gradient(name):
    def program(a):
        return (_inner_np(name, a) * np.cos(a)).sum()
    return central_jacobian(program, A0, 1e-4)


@pytest.mark.parametrize("inner", sorted(INNER))
def test_inner_transform_values_match_central_differences(inner):
    np.testing.assert_allclose(INNER[inner](t64(A0)).numpy(), _inner_np(inner, A0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("outer", ["grad", "jacrev", "jacfwd", "jvp", "backward", "mg_grad"])
@pytest.mark.parametrize("inner", sorted(INNER))
def test_every_inner_transform_under_every_outer_one(inner, outer):
    program = _outer_program(INNER[inner])
    expected = _expected_gradient(inner)
    a = t64(A0)
    if outer == "grad":
        got = F.grad(program)(a).numpy()
    elif outer == "jacrev":
        got = F.jacrev(program)(a).numpy()
    elif outer == "jacfwd":
        got = F.jacfwd(program)(a).numpy()
    elif outer == "jvp":
        got = np.array([F.jvp(program, (a,), (t64(np.eye(2)[j]),))[1].item() for j in range(2)])
    elif outer == "backward":
        leaf = t64(A0, requires_grad=True)
        program(leaf).backward()
        got = leaf.grad.numpy()
    else:  # mg.grad, through a program that requires grad
        leaf = t64(A0, requires_grad=True)
        got = mg.grad(program(leaf), [leaf])[0].numpy()
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6)


def test_three_levels_deep_each_closing_over_the_outer_ones():
    def program(a):
        def middle(b):
            def inner(c):
                return (mg.sin(a * b * c) * c).sum()
            return (F.grad(inner)(b * 0.5) * a).sum()
        return F.grad(middle)(a + 1.0).sum() * a.sum()

    def program_np(a):
        def middle(b):
            def inner(c):
                return (np.sin(a * b * c) * c).sum()
            return (central_jacobian(inner, b * 0.5, 1e-4) * a).sum()
        return central_jacobian(middle, a + 1.0, 1e-3).sum() * a.sum()

    a0 = np.array([0.4, 0.9])
    expected = central_jacobian(program_np, a0, 1e-3)
    for outer in (F.grad, F.jacrev, F.jacfwd):
        np.testing.assert_allclose(outer(program)(t64(a0)).numpy(), expected, rtol=1e-4, atol=1e-4)
