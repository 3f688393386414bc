"""In-place writes inside a transformed function: into the tensors it closes over, and into its own.

A function under ``mg.func.grad``/``vjp``/``jvp`` (and the Jacobians built on
them) that wrote a value depending on its argument into a tensor it *closes
over* left that tensor holding the transform's inner history (it came out
requiring grad, its graph leading to the transform's own argument handles) or
its values written from a tangent-carrying dual.  ``torch.func`` (2.13)
refuses every such write with "During a grad (vjp, jvp, grad, etc) transform,
the function provided attempted to call in-place operation (aten::add_.Tensor)
that would mutate a captured Tensor. ..."; so does mg now, for every in-place
form, before anything is written.  Writes into tensors the function makes,
into its arguments' memory and into non-differentiated arguments are allowed
where torch allows them (torch 2.13's answers are noted beside each case).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.nn import functional as NF

REFUSED = "would mutate a captured Tensor"
X0 = np.array([1.0, -2.0, 3.0])

# Each write puts a value that depends on x into c (a tensor the function closes over).
WRITES = {
    "add_": lambda c, x: c.add_(x),
    "sub_ alpha": lambda c, x: c.sub_(x, alpha=2),
    "mul_": lambda c, x: c.mul_(x),
    "div_": lambda c, x: c.div_(x),
    "+=": lambda c, x: c.__iadd__(x * 2),
    "*=": lambda c, x: c.__imul__(x),
    "setitem": lambda c, x: c.__setitem__(0, x[1]),
    "setitem mask": lambda c, x: c.__setitem__(x.detach() > 0, x[x.detach() > 0]),
    "copy_": lambda c, x: c.copy_(x),
    "copy_ of a where": lambda c, x: c.copy_(mg.where(x > 0, x, c)),
    "a view made inside, add_": lambda c, x: c[:2].add_(x[:2]),
    "a view made inside, [:, 0] *=": lambda c, x: c.view(3, 1)[:, 0].__imul__(x),
    "narrow().copy_": lambda c, x: c.narrow(0, 1, 2).copy_(x[1:]),
    "unsqueeze()[0] =": lambda c, x: c.unsqueeze(0).__setitem__(0, x),
    "a detached alias": lambda c, x: c.detach().add_(x),
    ".data": lambda c, x: c.data.add_(x),
}

TRANSFORMS = {
    "grad": lambda f, x: F.grad(f)(x),
    "vjp": lambda f, x: F.vjp(f, x)[1](mg.tensor(1.0, dtype=x.dtype)),
    "jvp": lambda f, x: F.jvp(f, (x,), (mg.ones_like(x),)),
    "jacrev": lambda f, x: F.jacrev(f)(x),
    "jacfwd": lambda f, x: F.jacfwd(f)(x),
    "hessian": lambda f, x: F.hessian(f)(x),
    "linearize": lambda f, x: F.linearize(f, x)[1](mg.ones_like(x)),
    "grad of a checkpointed segment": lambda f, x: F.grad(lambda a: checkpoint(f, a, use_reentrant=False))(x),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("write", WRITES)
def test_a_write_that_depends_on_the_argument_into_a_captured_tensor_is_refused(write, transform, dtype):
    c = mg.tensor([0.5, 0.25, 2.0], dtype=dtype)
    view_made_outside = c[1:]

    def f(x):
        WRITES[write](c, x)
        return (x * x).sum()

    with pytest.raises(RuntimeError, match=REFUSED):
        TRANSFORMS[transform](f, mg.tensor(X0, dtype=dtype))
    # refused before anything was written: c is as it was, without history
    np.testing.assert_array_equal(c.numpy(), np.array([0.5, 0.25, 2.0], dtype=dtype))
    assert not c.requires_grad and c.grad_fn is None
    assert view_made_outside.tolist() == [0.25, 2.0]


@pytest.mark.parametrize("transform", ["grad", "jvp", "vjp"])
def test_a_write_through_a_view_made_outside_the_function_is_refused(transform):
    c = mg.zeros(3)
    v = c[:2]  # torch 2.13: refused as a write into c
    with pytest.raises(RuntimeError, match=REFUSED):
        TRANSFORMS[transform](lambda x: (v.add_(x[:2]), x.sum())[1], mg.tensor(X0))
    assert c.tolist() == [0.0, 0.0, 0.0]


def test_an_in_place_layer_on_a_captured_tensor_with_history_is_refused():
    w = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = w * 2  # captured, with history of its own (outside the transform)
    for write in (lambda: NF.relu(h, inplace=True), lambda: NF.leaky_relu(h, 0.1, inplace=True),
                  lambda: NF.dropout(h, 0.5, training=True, inplace=True), lambda: h.clamp_(0, 1)):
        with pytest.raises(RuntimeError, match=REFUSED):
            F.grad(lambda x, write=write: (write(), (x * x).sum())[1])(mg.tensor(X0))
    assert h.tolist() == [1.0, -2.0, 4.0]


def test_a_captured_module_parameter_is_not_written():
    lin = mg.nn.Linear(3, 3)
    before = lin.bias.numpy().copy()
    with pytest.raises(RuntimeError):  # torch 2.13: RuntimeError (a captured Tensor)
        F.grad(lambda x: (lin.bias.add_(x), lin(x).sum())[1])(mg.tensor(X0))
    np.testing.assert_array_equal(lin.bias.numpy(), before)


def test_an_inner_transform_may_not_write_the_outer_ones_tensors():
    x = mg.tensor(X0)

    def writes_outer_argument(a):  # the inner function writes a, the outer argument
        return F.grad(lambda y: (a.add_(y), (y * y).sum())[1])(a.clone()).sum()

    def writes_outer_tensor(a):  # ... or a tensor the outer function made
        z = mg.zeros(3)
        return F.grad(lambda y: (z.add_(y), (y * z).sum())[1])(a).sum()

    for outer in (writes_outer_argument, writes_outer_tensor):  # torch 2.13: refused, both
        with pytest.raises(RuntimeError, match=REFUSED):
            F.grad(outer)(x)
        with pytest.raises(RuntimeError, match=REFUSED):
            F.jvp(outer, (x,), (mg.ones(3),))


# ---------------------------------------------------------------------------
# What stays allowed, as in torch.func
# ---------------------------------------------------------------------------
def _made_inside(x):
    z = mg.zeros(3)
    z.add_(x)
    z[0] = x[1] * x[2]
    buf = (mg.ones(3) * 0).view(3, 1)
    buf[:, 0] *= x
    w = x.clone()
    w.clamp_(-1.5, 1.5)
    NF.relu(w, inplace=True)
    u = mg.zeros(2, 3)
    u[1].copy_(x * x)
    return (z * x).sum() + buf.sum() + w.sum() + u.sum()


@pytest.mark.parametrize("transform", ["grad", "vjp", "jacrev", "jacfwd", "hessian"])
def test_writes_into_tensors_the_function_makes_are_differentiated(transform):
    x = mg.tensor(X0)
    got = TRANSFORMS[transform](_made_inside, x)
    got = (got[0] if transform == "vjp" else got).numpy()
    plain = mg.tensor(X0, requires_grad=True)
    g = mg.autograd.grad(_made_inside(plain), plain, create_graph=True)[0]
    if transform == "hessian":
        want = np.stack([mg.autograd.grad(g[i], plain, retain_graph=True)[0].numpy() for i in range(3)])
    else:
        want = g.detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    _, dy = F.jvp(_made_inside, (x,), (mg.ones(3),))
    np.testing.assert_allclose(dy.item(), g.detach().numpy().sum(), rtol=1e-12)


def test_a_non_differentiated_argument_takes_the_values_not_the_history():
    x = mg.tensor(X0)
    buf = mg.zeros(3)
    g = F.grad(lambda a, b: (b.add_(a * a), a.sum())[1])(x, buf)
    # torch 2.13: tensor([1., 1., 1.]), buf tensor([1., 4., 9.]), requires_grad False, grad_fn None
    assert g.tolist() == [1.0, 1.0, 1.0]
    assert buf.tolist() == [1.0, 4.0, 9.0]
    assert not buf.requires_grad and buf.grad_fn is None
    kw = mg.zeros(3)
    F.grad(lambda a, *, b: (b.add_(a * a), a.sum())[1])(x, b=kw)
    assert kw.tolist() == [1.0, 4.0, 9.0] and not kw.requires_grad


def test_jvp_writes_into_its_argument_reach_the_callers_tensor():
    x = mg.tensor(X0)
    y, dy = F.jvp(lambda a: (a.add_(1.0), (a * a).sum())[1], (x,), (mg.ones(3),))
    assert (y.item(), dy.item()) == (21.0, 10.0)  # torch 2.13: (tensor(21.), tensor(10.))
    assert x.tolist() == [2.0, -1.0, 4.0]  # torch 2.13: the caller's tensor was written


def test_a_write_without_the_transforms_history_into_a_captured_tensor_happens():
    # Deliberately not refused (torch 2.13 refuses it too; docs/from-pytorch.md): nothing of
    # the transform leaks, and side effects happen as in one call -- BatchNorm's running statistics.
    count = mg.zeros(())
    bn = mg.nn.BatchNorm1d(3)

    def f(x):
        count.add_(1)
        with mg.no_grad():
            count.add_(x.detach().sum() * 0)
        return bn(x.view(1, 3).expand(2, 3) * mg.tensor([[1.0], [2.0]])).sum()

    x = mg.tensor(X0, dtype="float32")
    F.grad(f)(x)
    F.jvp(f, (x,), (mg.ones(3),))
    assert count.item() == 2.0 and not count.requires_grad
    assert int(bn.num_batches_tracked) == 2


def test_another_threads_writes_are_not_judged_by_this_threads_transform():
    import threading

    mine = mg.zeros(3)  # another thread's tensor, made before the transform opened
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    errors = []

    def other_thread():
        try:
            mine.add_(w * 2)  # a recorded write, outside any transform of this thread
        except RuntimeError as e:
            errors.append(e)

    def f(x):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        return (x * x).sum()

    F.grad(f)(mg.tensor(X0))
    assert not errors and mine.tolist() == [2.0, 4.0, 6.0] and mine.requires_grad
