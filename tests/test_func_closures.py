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


# ---------------------------------------------------------------------------
# In-place writes carry the tangent (or are refused), never drop it
# ---------------------------------------------------------------------------
def test_setitem_into_a_fresh_tensor_carries_the_tangent():
    x, v = t64([1.0, 1.5, 1.5]), t64([1.0, 1.0, 0.5])

    def f(a):
        y = mg.zeros(3, dtype="float64")
        y[0] = a[1] * a[2]
        return y

    np.testing.assert_allclose(F.jvp(f, (x,), (v,))[1].numpy(), [2.25, 0.0, 0.0])


def _writes(a):
    """Every in-place method, each writing a value that moves with ``a``."""
    y = a * 2.0                      # carries a tangent already
    y.add_(a)
    y.sub_(a * 0.5)
    y.mul_(a)
    y.div_(a + 3.0)
    y[1:] = a[:2] ** 2               # basic index, value with a tangent
    y[mg.tensor([0, 0])] = a[2] * 4.0  # advanced index, repeated: the last write wins
    y[2] = 0.5                       # a constant overwrites a moving element
    z = mg.zeros(3, dtype="float64")
    z.copy_(mg.sin(a))
    w = mg.ones(3, dtype="float64")
    w.fill_(a[0] * a[1])
    u = mg.ones(3, dtype="float64")
    u += a
    u *= a
    u -= a[0]
    u /= 2.0
    e = mg.ones(3, dtype="float64") * a  # zero_ leaves no tangent
    e.zero_()
    return y + z * w + u + e


def _writes_np(a):
    y = a * 2.0
    y = y + a
    y = y - a * 0.5
    y = y * a
    y = y / (a + 3.0)
    y[1:] = a[:2] ** 2
    y[0] = a[2] * 4.0
    y[2] = 0.5
    z = np.sin(a)
    w = np.full(3, a[0] * a[1])
    u = ((np.ones(3) + a) * a - a[0]) / 2.0
    return y + z * w + u


def test_every_in_place_method_carries_the_tangent():
    a0 = np.array([0.7, -1.3, 0.4])
    expected = central_jacobian(_writes_np, a0)
    np.testing.assert_allclose(F.jacfwd(_writes)(t64(a0)).numpy(), expected, rtol=1e-8, atol=1e-9)
    v = np.array([0.3, 1.0, -2.0])
    np.testing.assert_allclose(F.jvp(_writes, (t64(a0),), (t64(v),))[1].numpy(), expected @ v,
                               rtol=1e-8, atol=1e-9)
    # forward over forward: the tangent's own tangent goes through the writes too
    H = F.jacfwd(F.jacfwd(lambda a: _writes(a).sum()))(t64(a0)).numpy()
    H_fd = central_jacobian(lambda a: central_jacobian(lambda b: _writes_np(b).sum(), a, 1e-4), a0, 1e-4)
    np.testing.assert_allclose(H, H_fd, rtol=1e-5, atol=1e-6)


def test_writes_into_views_and_arguments_carry_the_tangent():
    x = t64([1.0, 2.0, 3.0])

    def into_a_view(a):
        y = mg.zeros(3, dtype="float64")
        y[0:2][0] = a[0]          # y sees the tangent written into its view
        return y

    def into_the_argument(a):
        a[0] = 5.0 * a[1]         # the caller's x shares the memory: it takes the values, not the tangent
        return a

    # a write through a view reaches its base's tangent (torch.func.jvp: [1, 0, 0])
    np.testing.assert_array_equal(F.jvp(into_a_view, (x,), (mg.ones_like(x),))[1].numpy(), [1.0, 0.0, 0.0])
    _, tangent = F.jvp(into_the_argument, (x,), (mg.ones_like(x),))   # as torch.func.jvp
    np.testing.assert_array_equal(tangent.numpy(), [5.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.numpy(), [10.0, 2.0, 3.0])
    x = t64([1.0, 2.0, 3.0])
    # reverse mode records a write of a value that requires grad (the buffer takes its history)

    def into_a_buffer(a):
        buf = mg.zeros(3, dtype="float64")
        buf[0] = a[1] * a[2]
        return (buf * buf).sum()

    np.testing.assert_array_equal(F.grad(into_a_buffer)(x).numpy(), [0.0, 2 * 2.0 * 9.0, 2 * 3.0 * 4.0])


def test_a_write_without_tangents_costs_nothing_and_changes_nothing():
    x = t64([1.0, 2.0])
    buf = mg.zeros(2, dtype="float64")

    def f(a):
        buf.add_(1.0)              # a closed-over buffer, constant writes: no tangent involved
        return a * buf

    y, dy = F.jvp(f, (x,), (mg.ones_like(x),))
    np.testing.assert_allclose(dy.numpy(), [1.0, 1.0])
    assert buf._tangents is None


# ---------------------------------------------------------------------------
# Side effects run once
# ---------------------------------------------------------------------------
class _Counter(mg.nn.Module):
    """A user's module with its own buffer, updated in place on every call."""

    def __init__(self):
        super().__init__()
        self.register_buffer("calls", mg.zeros((), dtype="int64"))
        self.register_buffer("total", mg.zeros(3, dtype="float64"))

    def forward(self, x):
        with mg.no_grad():
            self.calls.add_(1)
            self.total.add_(x.detach().sum(axis=0))
        return x * 2.0


def _bn_and_counter():
    mg.manual_seed(3)
    return mg.nn.BatchNorm1d(3, dtype="float64"), _Counter()


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev", "hessian", "jvp", "vjp", "hvp", "linearize",
                                       "jacfwd_of_jacfwd"])
def test_module_buffers_end_as_after_one_call(transform):
    x = t64(RNG.standard_normal((4, 3)))
    bn, counter = _bn_and_counter()
    ref_bn, ref_counter = _bn_and_counter()
    ref_bn(ref_counter(x))

    def f(a):
        return mg.tanh(bn(counter(a)))

    def loss(a):
        return (f(a) ** 2).sum()

    ones = mg.ones_like(x)
    {"jacfwd": lambda: F.jacfwd(f)(x), "jacrev": lambda: F.jacrev(f)(x), "hessian": lambda: F.hessian(loss)(x),
     "jvp": lambda: F.jvp(f, (x,), (ones,)), "vjp": lambda: F.vjp(f, x)[1](ones),
     "hvp": lambda: F.hvp(loss, (x,), (ones,)), "linearize": lambda: F.linearize(f, x)[1](ones),
     "jacfwd_of_jacfwd": lambda: F.jacfwd(F.jacfwd(loss))(x)}[transform]()
    assert counter.calls.item() == 1 and bn.num_batches_tracked.item() == 1
    np.testing.assert_array_equal(counter.total.numpy(), ref_counter.total.numpy())
    for name in ("running_mean", "running_var"):
        np.testing.assert_array_equal(getattr(bn, name).numpy(), getattr(ref_bn, name).numpy())


def test_jacobians_of_a_training_mode_batch_norm_match_central_differences():
    x0 = RNG.standard_normal((3, 2))
    bn = mg.nn.BatchNorm1d(2, dtype="float64")

    def f(a):
        return mg.tanh(bn(a)) * a

    def f_np(a):
        z = (a - a.mean(axis=0)) / np.sqrt(a.var(axis=0) + bn.eps)
        return np.tanh(z) * a

    J = central_jacobian(f_np, x0)
    for jac in (F.jacfwd, F.jacrev):
        np.testing.assert_allclose(jac(f)(t64(x0)).numpy(), J, rtol=1e-7, atol=1e-8)
    H = central_jacobian(lambda a: central_jacobian(lambda b: f_np(b).sum(), a, 1e-4), x0, 1e-4)
    for hess in (F.hessian, lambda g: F.jacfwd(F.jacfwd(g)), lambda g: F.jacrev(F.jacrev(g))):
        np.testing.assert_allclose(hess(lambda a: f(a).sum())(t64(x0)).numpy(), H, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Arguments as JAX takes them
# ---------------------------------------------------------------------------
def _kw(x, y, *, scale, shift=0.0):
    return (mg.sin(x * y) * scale).sum() + shift


def test_keyword_arguments_pass_through_every_transform():
    x, y = t64([0.3, 0.8]), t64([1.1, -0.4])
    g = (mg.cos(x * y) * y * 2.0).numpy()
    np.testing.assert_allclose(F.grad(_kw)(x, y, scale=2.0).numpy(), g)
    np.testing.assert_allclose(F.value_and_grad(_kw)(x, y, scale=2.0, shift=1.0)[1].numpy(), g)
    np.testing.assert_allclose(F.jacrev(_kw)(x, y, scale=2.0).numpy(), g)
    np.testing.assert_allclose(F.jacfwd(_kw)(x, y, scale=2.0).numpy(), g)
    np.testing.assert_allclose(F.vjp(_kw, x, y, scale=2.0)[1](t64(1.0))[0].numpy(), g)
    np.testing.assert_allclose(F.jvp(_kw, (x, y), (t64([1.0, 0.0]), t64([0.0, 0.0])), scale=2.0)[1].item(), g[0])
    np.testing.assert_allclose(F.linearize(_kw, x, y, scale=2.0)[1](t64([1.0, 0.0]), t64([0.0, 0.0])).item(),
                               g[0])
    H = F.hessian(_kw)(x, y, scale=2.0).numpy()
    np.testing.assert_allclose(H, np.diag(-(np.sin(x.numpy() * y.numpy()) * y.numpy() ** 2) * 2.0))
    np.testing.assert_allclose(F.hvp(_kw, (x, y), (t64([1.0, 0.0]), t64([0.0, 0.0])), scale=2.0)[1][0].numpy(),
                               H[:, 0])


def test_argnums_tuples_and_negative_ones_in_every_jacobian():
    x, y = t64([0.3, 0.8]), t64([1.1, -0.4, 0.5])

    def f(a, b):
        return (a[:, None] * b[None, :] ** 2).sum() + (a ** 3).sum()

    hxx = np.diag(6 * x.numpy())
    hxy = 2 * np.ones((2, 1)) * y.numpy()[None, :]
    hyy = np.diag(2 * np.full(3, x.numpy().sum()))
    for hess in (F.hessian, lambda g, argnums: F.jacfwd(F.jacfwd(g, argnums), argnums),
                 lambda g, argnums: F.jacrev(F.jacrev(g, argnums), argnums)):
        np.testing.assert_allclose(hess(f, argnums=-1)(x, y).numpy(), hyy, atol=1e-12)
        blocks = hess(f, argnums=(-2, -1))(x, y)
        np.testing.assert_allclose(blocks[0][0].numpy(), hxx, atol=1e-12)
        np.testing.assert_allclose(blocks[0][1].numpy(), hxy, atol=1e-12)
        np.testing.assert_allclose(blocks[1][1].numpy(), hyy, atol=1e-12)
        (b_yx,) = hess(f, argnums=(-1,))(x, y)[0][:1]
        np.testing.assert_allclose(b_yx.numpy(), hyy, atol=1e-12)
    gy, gx = F.grad(f, argnums=(-1, 0))(x, y)
    np.testing.assert_allclose(gx.numpy(), (y.numpy() ** 2).sum() + 3 * x.numpy() ** 2)


def test_has_aux_in_every_transform():
    x, v = t64([0.5, -1.0]), t64([1.0, 2.0])

    def f(a):
        return (a ** 3).sum(), {"note": (a * 0).sum(), "double": a * 2}

    value, hv, aux = F.hvp(f, (x,), (v,), has_aux=True)
    np.testing.assert_allclose(hv[0].numpy(), 6 * x.numpy() * v.numpy())
    assert aux["note"].item() == 0 and value.item() == pytest.approx(-0.875)
    out, jvp_fn, aux = F.linearize(f, x, has_aux=True)
    np.testing.assert_allclose(jvp_fn(v).item(), (3 * x.numpy() ** 2 * v.numpy()).sum())
    np.testing.assert_allclose(aux["double"].numpy(), [1.0, -2.0])
    assert F.jvp(f, (x,), (v,), has_aux=True)[2]["note"].item() == 0
    assert F.vjp(f, x, has_aux=True)[2]["note"].item() == 0
    for t in (F.grad, F.jacrev, F.jacfwd, F.hessian):
        assert t(f, has_aux=True)(x)[1]["note"].item() == 0
    assert F.value_and_grad(f, has_aux=True)(x)[0][1]["note"].item() == 0


def test_pytrees_in_and_out():
    params = {"w": t64([[0.5, -0.3], [0.2, 0.9]]), "b": (t64([0.1, -0.1]),)}
    x = t64([1.0, 2.0])

    def f(p, a):
        h = mg.tanh(mg.matmul(p["w"], a) + p["b"][0])
        return {"h": h, "parts": [h.sum(), (h * h).sum()]}

    J = F.jacrev(f)(params, x)
    Jf = F.jacfwd(f)(params, x)
    assert set(J) == {"h", "parts"} and isinstance(J["parts"], list) and isinstance(J["h"]["b"], tuple)
    assert J["h"]["w"].shape == (2, 2, 2) and J["parts"][1]["b"][0].shape == (2,)
    for path in (lambda j: j["h"]["w"], lambda j: j["parts"][1]["b"][0], lambda j: j["parts"][0]["w"]):
        np.testing.assert_allclose(path(J).numpy(), path(Jf).numpy(), rtol=1e-13, atol=1e-15)
    g = F.grad(lambda p, a: f(p, a)["parts"][1])(params, x)
    np.testing.assert_allclose(g["w"].numpy(), J["parts"][1]["w"].numpy())
    out, fn = F.vjp(f, params, x)
    gp, gx = fn({"h": mg.ones(2, dtype="float64"), "parts": [t64(0.0), t64(0.0)]})
    np.testing.assert_allclose(gp["b"][0].numpy(), J["h"]["b"][0].numpy().sum(axis=0))
    _, tangent = F.jvp(f, (params, x), ({"w": mg.zeros((2, 2), dtype="float64"), "b": (t64([1.0, 0.0]),)},
                                        mg.zeros(2, dtype="float64")))
    np.testing.assert_allclose(tangent["h"].numpy(), J["h"]["b"][0].numpy()[:, 0])


def test_a_number_where_a_differentiable_value_is_needed_is_a_clear_error():
    x = t64([1.0, 2.0])
    for t in (F.jacrev, F.jacfwd):
        with pytest.raises(RuntimeError, match=r"output\['b'\] is a float, not a Tensor"):
            t(lambda a: {"a": a * 2, "b": 3.0})(x)
    with pytest.raises(RuntimeError, match=r"output\[1\] is a int"):
        F.jvp(lambda a: (a, 1), (x,), (x,))
