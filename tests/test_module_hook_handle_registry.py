"""A module's hook handle answers ``hooks_dict_ref()`` and ``extra_dict_ref``, as PyTorch's
``RemovableHandle`` (whose instance it counts as): the registry the hook is in, so code can see a hook
come and go (``handle.id in handle.hooks_dict_ref()``). The engine's handle had neither. Found running
PyTorch's test/nn/test_module_hooks.py (``test_module_forward_preforward_hook_removable``) against it."""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.utils.hooks import RemovableHandle


def test_a_hook_that_removes_itself_and_its_neighbour_leaves_the_registry_empty() -> None:
    m = mg.nn.Sigmoid()
    handles: dict = {}

    def first(mod: object, inp: tuple) -> tuple:
        handles[1].remove()
        return inp

    def second(mod: object, inp: tuple) -> tuple:
        handles[2].remove()
        return inp

    handles[1] = m.register_forward_pre_hook(first)
    handles[2] = m.register_forward_pre_hook(second)
    assert isinstance(handles[1], RemovableHandle)
    assert handles[1].hooks_dict_ref() is handles[2].hooks_dict_ref() is m._forward_pre_hooks
    assert len(handles[1].hooks_dict_ref()) == 2 and handles[2].id in handles[2].hooks_dict_ref()
    x = mg.tensor([[0.5, -1.0]])
    np.testing.assert_allclose(m(x).numpy(), 1 / (1 + np.exp(-x.numpy())), rtol=1e-6)
    assert handles[1].id not in handles[1].hooks_dict_ref() and len(handles[2].hooks_dict_ref()) == 0


def test_a_hooks_options_are_in_its_extra_registries() -> None:
    m = mg.nn.Identity()
    h = m.register_forward_hook(lambda mod, args, kwargs, out: out, with_kwargs=True, always_call=True)
    extras = [ref() for ref in h.extra_dict_ref]
    assert extras and all(h.id in d for d in extras)
    h.remove()
    assert all(h.id not in d for d in extras) and h.id not in h.hooks_dict_ref()
