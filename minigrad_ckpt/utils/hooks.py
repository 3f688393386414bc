"""``mg.utils.hooks``: PyTorch's ``torch.utils.hooks`` -- ``RemovableHandle``, the handle a hook registry
returns (code that keeps its own hooks builds one: ``handle = RemovableHandle(self._hooks);
self._hooks[handle.id] = hook``), and ``unserializable_hook``.  The handles the engine's own
``register_*hook`` methods return count as ``RemovableHandle``s (``isinstance``), as PyTorch's are.
"""

from __future__ import annotations

import weakref
from abc import ABCMeta
from collections import OrderedDict
from typing import Any

from ..nn.module import _HookHandle as _ModuleHookHandle
from ..tensor import _HookHandle as _TensorHookHandle
from ..tensor import _HookHandles

__all__ = ["RemovableHandle", "unserializable_hook"]


class RemovableHandle(metaclass=ABCMeta):
    """A handle that removes a hook: ``hooks_dict`` (held weakly) maps the handle's ``id`` to the hook;
    ``remove()`` deletes that key from it and from ``extra_dict`` (a dict or a list of dicts), twice is
    harmless; a context manager too.  PyTorch's class, with its pickling (the dicts by value)."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __getstate__(self) -> tuple:
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state: tuple) -> None:
        # a dict that died before pickling comes back as a dead reference (to a dict nobody holds)
        self.hooks_dict_ref = weakref.ref(OrderedDict()) if state[0] is None else weakref.ref(state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = () if len(state) < 3 or state[2] is None else tuple(weakref.ref(d) for d in state[2])

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


for _handle in (_ModuleHookHandle, _TensorHookHandle, _HookHandles):  # the engine's: RemovableHandles too
    RemovableHandle.register(_handle)


def unserializable_hook(f: Any) -> Any:
    """Mark ``f`` as a hook that is not saved with its tensor (PyTorch's decorator: it sets
    ``f.__torch_unserializable__``; a tensor's hooks are never saved here, so nothing warns)."""
    f.__torch_unserializable__ = True
    return f
