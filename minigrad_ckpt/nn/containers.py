"""Containers: Sequential, ModuleList, ModuleDict."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from ..checkpoint import enable_checkpointing
from .module import Module

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


class Sequential(Module):
    """Modules applied in order: ``Sequential(Linear(2, 8), ReLU(), Linear(8, 1))``.

    Indexable (``seq[0]``), sliceable (``seq[1:]`` is a Sequential), iterable,
    and ``len()``-able.  Also accepts an ``OrderedDict`` of named modules.
    """

    def __init__(self, *modules: Any) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                if not isinstance(m, Module):
                    raise TypeError(f"Sequential: argument {i} is a {type(m).__name__}, not a Module")
                self.add_module(str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def enable_checkpointing(self, config: Any) -> Sequential:
        """Run the layers under a :class:`~minigrad_ckpt.checkpoint.CheckpointingConfig`
        (or a policy) from now on; ``None`` switches checkpointing off.

        Checkpointing wraps this instance's ``forward``
        (:func:`minigrad_ckpt.checkpoint.enable_checkpointing`)."""
        return enable_checkpointing(self, config)

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(items[idx]))
        if not -len(items) <= idx < len(items):
            raise IndexError(f"Sequential index {idx} is out of range for {len(items)} modules")
        return items[idx][1]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters the parent module sees."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module: Module) -> ModuleList:
        if not isinstance(module, Module):
            raise TypeError(f"ModuleList holds Modules, got {type(module).__name__}")
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for m in modules:
            self.append(m)
        return self

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(items[idx])
        return items[idx]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))


class ModuleDict(Module):
    """A dict of modules whose parameters the parent module sees."""

    def __init__(self, modules: dict[str, Module] | None = None) -> None:
        super().__init__()
        for k, m in (modules or {}).items():
            self[k] = m

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"ModuleDict holds Modules, got {type(module).__name__}")
        self.add_module(key, module)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._modules))

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()
