"""``mg.utils.hooks`` -- PyTorch's ``RemovableHandle`` (which code with a hook registry of its own builds, and
type hints name) and ``unserializable_hook`` -- and ``mg.autograd.graph.Node``, the type of what ``grad_fn``
and ``next_functions`` hold; each an AttributeError / ImportError before.  torch 2.13: a handle's ``id``
counts up, ``remove()`` deletes it from its dict and the extra dicts (twice is harmless), it is a context
manager and pickles with its dicts; the handles of ``register_hook``, ``register_forward_hook``, ... are
instances; ``isinstance(y.grad_fn, Node)`` and ``isinstance(y.grad_fn.next_functions[0][0], Node)`` hold.
"""
from __future__ import annotations

import pickle
from collections import OrderedDict

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import Node, register_multi_grad_hook
from minigrad_ckpt.utils.hooks import RemovableHandle, unserializable_hook


class Registry:
    def __init__(self):
        self.hooks = OrderedDict()
        self.options = OrderedDict()  # (a plain dict takes no weak reference, in PyTorch too)

    def register(self, fn, option):
        handle = RemovableHandle(self.hooks, extra_dict=self.options)
        self.hooks[handle.id] = fn
        self.options[handle.id] = option
        return handle


def test_a_registry_of_ones_own():
    reg = Registry()
    first, second = reg.register(print, 1), reg.register(repr, 2)
    assert second.id == first.id + 1
    with first:
        assert list(reg.hooks.values()) == [print, repr]
    assert list(reg.hooks.values()) == [repr] and reg.options == {second.id: 2}
    second.remove()
    second.remove()
    assert not reg.hooks and not reg.options


def test_a_handle_pickles_with_its_dicts():
    reg = Registry()
    handle = reg.register("hook", "option")
    hooks, options, copy = pickle.loads(pickle.dumps((reg.hooks, reg.options, handle)))
    copy.remove()
    assert not hooks and not options and reg.hooks  # the copy's dicts, not the original's
    assert RemovableHandle(OrderedDict()).id > handle.id


def test_the_engines_handles_and_nodes_are_pytorchs_types():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    handles = [x.register_hook(lambda g: None), x.register_post_accumulate_grad_hook(lambda t: None),
               mg.nn.Linear(1, 1).register_forward_hook(lambda *a: None), y.grad_fn.register_prehook(lambda g: None),
               register_multi_grad_hook((x, y), lambda gs: None)]
    assert all(isinstance(h, RemovableHandle) for h in handles)
    assert isinstance(y.grad_fn, Node) and isinstance(y.grad_fn.next_functions[0][0], Node)
    assert not isinstance(x, Node) and x.grad_fn is None


def test_unserializable_hook_marks_the_function():
    @unserializable_hook
    def hook(grad):
        return grad

    assert hook.__torch_unserializable__ is True
    x = mg.tensor([1.0], requires_grad=True)
    x.register_hook(hook)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0]
