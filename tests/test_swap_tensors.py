"""``mg.utils.swap_tensors``, from the ``swap_tensors`` recipe: two tensor objects trade contents and keep
their identities (an optimizer holding a parameter sees the new values).  Before, the name was missing
(AttributeError).  torch 2.13's answers are in the comments."""

import weakref

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.tensor import post_hook_count


def test_the_recipes_first_swap():
    t1, t2 = mg.arange(2), mg.arange(3)
    mg.utils.swap_tensors(t1, t2)
    assert t1.tolist() == [0, 1, 2] and t2.tolist() == [0, 1]   # torch: tensor([0, 1, 2]) tensor([0, 1])


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_class_dict_grad_and_dtype_travel_with_the_contents(dtype):
    a = nn.Parameter(mg.ones(2, dtype=dtype))
    b = mg.zeros(3, dtype=mg.float64 if dtype == mg.float32 else mg.float32)
    a.grad, a.note = mg.full((2,), 5.0, dtype=dtype), "x"
    ia, ib = id(a), id(b)
    mg.utils.swap_tensors(a, b)
    # torch: Tensor Parameter <other dtype> <dtype> False True None tensor([5., 5.]) x False
    assert (id(a), id(b)) == (ia, ib) and type(a) is mg.Tensor and type(b) is nn.Parameter
    assert b.dtype == dtype and a.dtype != dtype and not a.requires_grad and b.requires_grad
    assert a.grad is None and b.grad.tolist() == [5.0, 5.0] and b.note == "x" and not hasattr(a, "note")


def test_an_optimizer_sees_the_swapped_in_weight():
    mod = nn.Linear(1, 2, bias=False)
    optimizer = mg.optim.SGD(mod.parameters(), lr=0.5)
    new = nn.Parameter(2 * mod.weight.detach())
    expected = new.detach().numpy().copy()
    mg.utils.swap_tensors(mod.weight, new)
    assert optimizer.param_groups[0]["params"][0] is mod.weight
    mod(mg.ones(1, 1)).sum().backward()
    optimizer.step()
    np.testing.assert_array_equal(mod.weight.detach().numpy(), expected - 0.5)


def test_views_follow_the_memory_not_the_object():
    t, u = mg.arange(3), mg.zeros(2, dtype=mg.int64)
    v = t[1:]
    mg.utils.swap_tensors(t, u)
    u[1:] = 9                       # u holds t's old memory now, which v shows
    assert u.tolist() == [0, 9, 9] and v.tolist() == [9, 9]
    t.add_(1)
    assert t.tolist() == [1, 1] and v.tolist() == [9, 9]


def test_refusals():
    c = mg.ones(2)
    r = weakref.finalize(c, lambda: None)  # noqa: F841 -- a weak reference of the user's
    keep = weakref.ref(c, lambda _: None)  # noqa: F841
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated with it"):
        mg.utils.swap_tensors(c, mg.ones(1))
    w = mg.ones(2, requires_grad=True)
    y = (w * w).sum()   # torch: "Expected use_count of t1 to be 1 or 2 ..." (saved for backward)
    with pytest.raises(RuntimeError, match="Cannot swap t1: an autograd graph recorded it"):
        mg.utils.swap_tensors(w, mg.ones(2, requires_grad=True))
    y.backward()        # the graph has run: the leaf may be swapped, as in torch
    mg.utils.swap_tensors(w, mg.zeros(2))
    assert w.tolist() == [0.0, 0.0] and w.grad is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    with pytest.raises(TypeError, match="expected t2 to be a Tensor"):
        mg.utils.swap_tensors(mg.ones(1), np.ones(1))


def test_post_accumulate_grad_hooks_travel_with_the_contents():
    # A leaf with a post-accumulate-grad hook was refused ('has weakref associated with it': the
    # engine's finalizer that clears the hooks when the leaf dies); torch 2.13 swaps it, and the hook
    # fires for the object that now holds the contents, with that object (t is z)
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    z = mg.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    z_id = id(z)
    x.register_post_accumulate_grad_hook(lambda t: seen.append((id(t) == z_id, t.grad.tolist())))
    mg.utils.swap_tensors(x, z)
    (z * 1.0).sum().backward()
    (x * 1.0).sum().backward()
    assert seen == [(True, [1.0, 1.0])]   # torch: [(True, [1.0, 1.0])], x's backward fires none
    del x                                 # the finalizer followed the hooks: x's death leaves z's
    (z * 2.0).sum().backward()
    assert seen[1:] == [(True, [3.0, 3.0])]
    count = post_hook_count[0]
    del z                                 # and z's death clears them (the count the backward loop reads)
    assert post_hook_count[0] == count - 1
