"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..checkpoint import enable_checkpointing
from ..tensor import Tensor
from .module import Module, Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _key_at(container: Module, idx: int) -> str:
    """The registered name of the ``idx``-th module (negative counts from the end), as PyTorch indexes."""
    keys = list(container._modules)
    idx = operator.index(idx)  # PyTorch's TypeError for a str or a float
    if not -len(keys) <= idx < len(keys):
        raise IndexError(f"index {idx} is out of range")
    return keys[idx]


def _dir_without_numbers(container: Module) -> list[str]:
    """PyTorch's ``dir()`` of a numbered container: its members' numbers are not attribute names."""
    return [key for key in Module.__dir__(container) if not key.isdigit()]


def _delete_and_renumber(container: Module, idx: int | slice) -> None:
    """``del seq[i]`` / ``del seq[a:b]``: the rest are numbered 0, 1, ... again, as PyTorch does."""
    keys = list(container._modules)[idx] if isinstance(idx, slice) else [_key_at(container, idx)]
    for key in keys:
        delattr(container, key)
    renumbered = OrderedDict((str(i), m) for i, m in enumerate(container._modules.values()))
    container._modules.clear()
    container._modules.update(renumbered)


def _insert(container: Module, index: int, module: Module) -> None:
    """``insert(index, module)`` as PyTorch's: the modules from ``index`` on move up one number."""
    if not isinstance(module, Module):
        raise AssertionError(f"module should be of type: {Module}")
    n = len(container._modules)
    if not -n <= index <= n:
        raise IndexError(f"Index out of range: {index}")
    index = index + n if index < 0 else index
    for i in range(n, index, -1):
        container._modules[str(i)] = container._modules[str(i - 1)]
    container._modules[str(index)] = module


def _pop(container: Any, key: int | slice) -> Any:
    value = container[key]
    del container[key]
    return value


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

    def forward(self, input: Any) -> Any:
        x = input  # PyTorch's argument name
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
        if isinstance(idx, slice):  # (the items listed only here: model[i] is in training loops)
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[_key_at(self, idx)]

    def __len__(self) -> int:
        return len(self._modules)

    __dir__ = _dir_without_numbers

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def __setitem__(self, idx: int, module: Module) -> None:
        """``seq[0] = nn.Tanh()`` replaces a layer where it stands."""
        setattr(self, _key_at(self, idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        _delete_and_renumber(self, idx)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        _insert(self, index, module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append each module of ``sequential`` (any iterable of modules), in order."""
        for layer in sequential:
            self.add_module(str(len(self)), layer)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module at ``key`` (the rest renumbered)."""
        return _pop(self, key)

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return self.extend(list(other))

    def __mul__(self, other: int) -> Sequential:
        """``seq * n``: a new Sequential of these modules ``n`` times over -- the same module objects, so
        the repeats share their weights (PyTorch's); ``n * seq`` too."""
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential(*(list(self) * other))

    __rmul__ = __mul__

    def __imul__(self, other: int) -> Sequential:
        """``seq *= n``: this Sequential's modules appended to it until there are ``n`` runs of them."""
        repeated = self * other
        return self.extend(list(repeated)[len(self):])


class ModuleList(Module):
    """A list of modules whose parameters the parent module sees."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index`` (the ones after it renumbered), as ``list.insert``."""
        _insert(self, index, module)

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module at ``key`` (the rest renumbered)."""
        return _pop(self, key)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(items[idx])
        return self._modules[_key_at(self, idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, _key_at(self, idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        _delete_and_renumber(self, idx)

    def __len__(self) -> int:
        return len(self._modules)

    __dir__ = _dir_without_numbers

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def __repr__(self) -> str:
        """PyTorch's listing: a run of modules that print the same is one line, ``(0-11): 12 x Block(...)``;
        under the class's own name (a subclass's, ``ParametrizationList``), as PyTorch's ``_get_name()``."""
        if not self._modules:
            return self._get_name() + "()"
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for i, m in enumerate(self):
            r = repr(m)
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}").replace("\n", "\n  ")
                 for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules whose parameters the parent module sees."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def update(self, modules: Any) -> None:
        """Add a mapping's modules (in its order) or ``(key, module)`` pairs, as PyTorch's (and its errors)."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (Mapping, ModuleDict)):
            for k, m in modules.items():
                self[k] = m
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is{type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
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


def _parameter_lines(parameters: Any) -> str:
    """PyTorch's listing of a parameter container: ``  (name): Parameter containing: [float32 of size 2x3]``,
    each line indented by two spaces of its own (so four in the container's repr, as PyTorch's)."""
    return "\n".join(f"  ({k}): Parameter containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]"
                     for k, p in parameters.items())


def _as_parameter(value: Any, holder: str) -> Parameter:
    """A Parameter as PyTorch's containers store one: a Parameter itself, a Tensor wrapped (no copy)."""
    if isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        return Parameter(value)
    raise TypeError(f"{holder} holds Parameters (or Tensors, which it wraps), got {type(value).__name__}")


class ParameterList(Module):
    """A list of parameters whose parent module sees them (named ``"0"``, ``"1"``, ...): PyTorch's
    ``nn.ParameterList``; a Tensor appended becomes a Parameter."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        for v in values or ():
            self.append(v)

    def append(self, value: Any) -> ParameterList:
        self.register_parameter(str(len(self)), _as_parameter(value, "ParameterList"))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        for v in values:
            self.append(v)
        return self

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        """``plist += [p, q]``: :meth:`extend`, as PyTorch's."""
        return self.extend(values)

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._parameters.values())
        return ParameterList(items[idx]) if isinstance(idx, slice) else items[idx]

    def __setitem__(self, idx: int, value: Any) -> None:
        name = str(range(len(self))[idx])  # an IndexError outside, negative indices from the end
        self.register_parameter(name, _as_parameter(value, "ParameterList"))

    def __len__(self) -> int:
        return len(self._parameters)

    __dir__ = _dir_without_numbers

    def __iter__(self) -> Iterator[Parameter]:
        return iter(list(self._parameters.values()))

    def extra_repr(self) -> str:
        return _parameter_lines(self._parameters)


class ParameterDict(Module):
    """A dict of parameters whose parent module sees them under their keys: PyTorch's ``nn.ParameterDict``."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self.update(parameters or {})

    def update(self, parameters: Any) -> None:
        """Add ``parameters``: an OrderedDict or ParameterDict in its order, a plain mapping in sorted
        key order (as PyTorch, so parameters() and an optimizer built on it list them as torch's do),
        or ``(key, value)`` pairs in order."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Any = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        for k, v in pairs:
            self[k] = v

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.register_parameter(key, None if value is None else _as_parameter(value, "ParameterDict"))

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._parameters))

    def keys(self) -> Iterable[str]:
        return self._parameters.keys()

    def values(self) -> Iterable[Parameter]:
        return self._parameters.values()

    def items(self) -> Iterable[tuple[str, Parameter]]:
        return self._parameters.items()

    def get(self, key: str, default: Any = None) -> Any:
        return self._parameters.get(key, default)

    def pop(self, key: str) -> Parameter:
        return self._parameters.pop(key)

    # PyTorch's other dict methods; copies share the Parameter objects
    def popitem(self) -> tuple[str, Parameter]:
        """Remove and return the last ``(key, parameter)``."""
        return self._parameters.popitem()

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each holding ``default``."""
        return ParameterDict(OrderedDict((k, default) for k in keys))

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict(self._parameters))

    def clear(self) -> None:
        self._parameters.clear()

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._parameters))

    def __or__(self, other: Any) -> ParameterDict:
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other: Any) -> ParameterDict:
        out = ParameterDict(other)
        out.update(self)
        return out

    def __ior__(self, other: Any) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return _parameter_lines(self._parameters)
