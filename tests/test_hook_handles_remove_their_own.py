"""A hook handle removes its own registration, as PyTorch's ``RemovableHandle`` (PyTorch keeps hooks in a
dict keyed by the handle's id): with one function registered twice, ``h1.remove()`` takes off the first
registration and ``h2.remove()`` the second, so the hooks left run in the order PyTorch runs them.  The
handles removed the hook *by its function* -- the newest registration if it was last, else the first
equal one -- so ``f, g, f`` less the first ``f`` ran ``f, g`` where PyTorch runs ``g, f``; a hook that
changes the gradient shows it.  Expected values are torch 2.13's."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.tape import node_hook_count
from minigrad_ckpt.tensor import post_hook_count

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict", mg.float32)]


class Hooks:
    """``f`` doubles the gradient, ``g`` adds one: the order they run in changes the result.  Plain
    functions, one object each (a bound method is a new object at each look-up, equal but not identical)."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        def f(g):
            self.ran.append("f")
            return g * 2

        def g(g):
            self.ran.append("g")
            return g + 1

        def pre_f(gs):  # a node pre-hook's form: a tuple in, a tuple out
            return (f(gs[0]),)

        def pre_g(gs):
            return (g(gs[0]),)

        self.f, self.g, self.pre_f, self.pre_g = f, g, pre_f, pre_g


def leaf(device, dtype, values=(1.0, 2.0)):
    return mg.tensor(list(values), dtype=dtype, device=device, requires_grad=True)


@pytest.mark.parametrize("device,dtype", DEVICES)
@pytest.mark.parametrize("removed,ran,grad", [(0, ["g", "f"], [4.0, 4.0]), (2, ["f", "g"], [3.0, 3.0])])
def test_a_leafs_handle_removes_its_own_of_two_registrations(device, dtype, removed, ran, grad):
    x, hooks = leaf(device, dtype), Hooks()
    handles = [x.register_hook(hooks.f), x.register_hook(hooks.g), x.register_hook(hooks.f)]
    handles[removed].remove()
    x.sum().backward()
    assert hooks.ran == ran
    np.testing.assert_array_equal(x.grad.numpy(), grad)
    assert x.grad.dtype == dtype


@pytest.mark.parametrize("device,dtype", DEVICES)
@pytest.mark.parametrize("removed,ran,grad", [(0, ["g", "f"], [4.0, 4.0]), (1, ["f", "g"], [3.0, 3.0])])
def test_a_non_leafs_handles_around_retain_grad(device, dtype, removed, ran, grad):
    x, hooks = leaf(device, dtype), Hooks()
    y = x * 1
    handles = [y.register_hook(hooks.f)]
    y.retain_grad()  # its hook runs after the others, whenever they were registered
    y.register_hook(hooks.g)
    handles.append(y.register_hook(hooks.f))
    handles[removed].remove()
    y.sum().backward()
    assert hooks.ran == ran
    np.testing.assert_array_equal(y.grad.numpy(), grad)  # the gradient as the hooks left it
    np.testing.assert_array_equal(x.grad.numpy(), grad)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_grad_fn_pre_hooks_and_hooks_removed_by_their_own_handle(device, dtype):
    x, hooks = leaf(device, dtype), Hooks()
    ran = hooks.ran
    y = x * 1
    h1 = y.grad_fn.register_prehook(hooks.pre_f)
    y.grad_fn.register_prehook(hooks.pre_g)
    y.grad_fn.register_prehook(hooks.pre_f)
    h1.remove()
    y.sum().backward()
    assert ran == ["g", "f"]
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])

    def f_post(gi, go):
        ran.append("f")
        return (gi[0] * 2, *gi[1:])

    def g_post(gi, go):
        ran.append("g")
        return (gi[0] + 1, *gi[1:])

    before, ran[:], x.grad = node_hook_count[0], [], None
    z = x * 1
    handles = [z.grad_fn.register_hook(f_post), z.grad_fn.register_hook(g_post), z.grad_fn.register_hook(f_post)]
    handles[0].remove()
    z.sum().backward()
    assert ran == ["g", "f"]
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])
    for h in handles[1:]:
        h.remove()
    assert node_hook_count[0] == before  # the last one off: the backward loop stops looking for node hooks


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_accumulate_grad_pre_hooks_removed_by_their_own_handle(device, dtype):
    x, hooks = leaf(device, dtype), Hooks()
    ran = hooks.ran
    acc = (x * 1).grad_fn.next_functions[0][0]
    h1 = acc.register_prehook(hooks.pre_f)
    acc.register_prehook(hooks.pre_g)
    acc.register_prehook(hooks.pre_f)
    h1.remove()
    (x * 3).sum().backward()
    assert ran == ["g", "f"]
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 8.0])


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_post_accumulate_grad_hooks_removed_by_their_own_handle(device, dtype):
    x, ran = leaf(device, dtype), []

    def f(t):
        ran.append("f")
        t.grad.mul_(2)

    def g(t):
        ran.append("g")
        t.grad.add_(1)

    h1 = x.register_post_accumulate_grad_hook(f)
    x.register_post_accumulate_grad_hook(g)
    x.register_post_accumulate_grad_hook(f)
    h1.remove()
    x.sum().backward()
    assert ran == ["g", "f"]
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def test_a_with_block_takes_off_its_own_registration():
    x, hooks = leaf("cpu", mg.float64), Hooks()
    outer = x.register_hook(hooks.f)
    x.register_hook(hooks.g)
    with x.register_hook(hooks.f):
        outer.remove()  # the first f goes, the with block's stays
        x.sum().backward()
    assert hooks.ran == ["g", "f"]
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])
    hooks.ran[:], x.grad = [], None
    x.sum().backward()
    assert hooks.ran == ["g"]  # the with block took its own off


def test_removing_twice_and_after_the_tensor_died_does_nothing():
    x, hooks = leaf("cpu", mg.float64), Hooks()
    h1, h2 = x.register_hook(hooks.f), x.register_hook(hooks.f)
    h1.remove()
    h1.remove()  # not the other registration of the same function
    x.sum().backward()
    assert hooks.ran == ["f"]
    h2.remove()
    h2.remove()

    gc.collect()  # (an earlier test's dead tensors with hooks go first: the count is the process's)
    before = post_hook_count[0]
    t = leaf("cpu", mg.float64)
    handles = [t.register_post_accumulate_grad_hook(hooks.f) for _ in range(2)]
    del t
    gc.collect()  # the dead tensor's hooks are cleared (they stop counting)
    assert post_hook_count[0] == before
    for h in handles:
        h.remove()  # their list is empty: nothing to take off, and nothing counted twice
    assert post_hook_count[0] == before


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_handles_of_a_hook_inside_checkpoint_and_grad(device, dtype):
    def fn(a, hooks):
        y = a * a
        h1 = y.register_hook(hooks.f)
        y.register_hook(hooks.g)
        y.register_hook(hooks.f)
        h1.remove()
        return y.sin()

    x, hooks = leaf(device, dtype), Hooks()
    mg.checkpoint.checkpoint(fn, x, hooks).sum().backward()
    assert hooks.ran == ["g", "f"]
    rtol = 1e-6 if dtype == mg.float32 else 1e-14
    np.testing.assert_allclose(x.grad.numpy(), [6.161209223472559, 2.7708510330911045], rtol=rtol)

    hooks = Hooks()
    r = mg.func.grad(lambda a: fn(a, hooks).sum())(x.detach())
    assert hooks.ran == ["g", "f"]
    np.testing.assert_allclose(r.numpy(), [6.161209223472559, 2.7708510330911045], rtol=rtol)


def test_hooks_kept_through_an_in_place_write():
    x, hooks = leaf("cpu", mg.float64), Hooks()
    y = x * 1
    h1 = y.register_hook(hooks.f)
    y.register_hook(hooks.g)
    y.register_hook(hooks.f)
    h1.remove()
    y.mul_(3)
    (y * y).sum().backward()
    assert hooks.ran == ["g", "f"]
    np.testing.assert_array_equal(x.grad.numpy(), [38.0, 74.0])


def test_module_hooks_prepended_and_registered_twice():
    # module hooks were always kept by handle id (a dict): this guards it
    lin, ran = mg.nn.Identity(), []

    def f(m, args, out):
        ran.append("f")
        return out * 2

    def g(m, args, out):
        ran.append("g")
        return out + 1

    h1 = lin.register_forward_hook(f)
    lin.register_forward_hook(g)
    h3 = lin.register_forward_hook(f, prepend=True)
    lin.register_forward_hook(f)
    h1.remove()
    with h3:
        pass
    h3.remove()
    out = lin(mg.ones(1))
    assert ran == ["g", "f"] and out.tolist() == [4.0]


def test_each_handle_has_an_id_of_its_own():
    x = leaf("cpu", mg.float64)
    hook = Hooks().f
    ids = {x.register_hook(hook).id, x.register_hook(hook).id, x.register_post_accumulate_grad_hook(hook).id,
           (x * 1).grad_fn.register_hook(hook).id}
    assert len(ids) == 4
