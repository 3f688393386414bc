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


def _parameter_lines(items: Iterable[tuple[Any, Any]]) -> str:
    """PyTorch's listing of a parameter container: ``  (name): Parameter containing: [float32 of size 2x3]``
    (``Object of type: str`` for a value that is no tensor), each line indented by two spaces of its
    own (so four in the container's repr, as PyTorch's)."""
    lines = []
    for k, p in items:
        if isinstance(p, Tensor):
            kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
            lines.append(f"  ({k}): {kind} containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]")
        else:
            lines.append(f"  ({k}): Object of type: {type(p).__name__}")
    return "\n".join(lines)


def _as_parameter(value: Any) -> Any:
    """What PyTorch's parameter containers store: a Tensor becomes a Parameter (no copy); a Parameter,
    None or any other object is kept as it is (an object that is no Parameter is a plain attribute,
    which ``parameters()`` does not list)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list whose parameters its parent module sees (named ``"0"``, ``"1"``, ...): PyTorch's
    ``nn.ParameterList``. A Tensor put in becomes a Parameter; as in PyTorch any other object may be
    held too (``parameters()`` skips it), each entry being the attribute named by its index."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        # A Tensor is iterable (by rows), but PyTorch refuses it: it would add each row as a parameter
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for v in values:
            self.append(v)
        return self

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        """``plist += [p, q]``: :meth:`extend`, as PyTorch's."""
        return self.extend(values)

    def _name_at(self, idx: Any) -> str:
        return str(range(len(self))[operator.index(idx)])  # an IndexError outside; negatives from the end

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._name_at(idx))

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, self._name_at(idx), _as_parameter(value))

    def __len__(self) -> int:
        return self._size

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickled before the list held objects that are no Parameters: its entries are its parameters
        state.setdefault("_size", len(state.get("_parameters", ())))
        self.__dict__.update(state)

    __dir__ = _dir_without_numbers

    def __iter__(self) -> Iterator[Any]:
        return iter([self[i] for i in range(len(self))])

    def extra_repr(self) -> str:
        return _parameter_lines(enumerate(self))


class ParameterDict(Module):
    """A dict whose parameters its parent module sees under their keys: PyTorch's ``nn.ParameterDict``.
    A Tensor put in becomes a Parameter; as in PyTorch any other object may be held too."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}  # every key in order (a value that is no Parameter included)
        if parameters is not None:
            self.update(parameters)

    def update(self, parameters: Any) -> None:
        """Add ``parameters``: an OrderedDict or ParameterDict in its order, a plain mapping in sorted
        key order (as PyTorch, so parameters() and an optimizer built on it list them as torch's do),
        or ``(key, value)`` pairs in order."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs: Any = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        elif isinstance(parameters, Iterable) and not isinstance(parameters, (str, bytes)):
            pairs = parameters
        else:
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, "
                            f"but got {type(parameters).__name__}")
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; "
                                f"is {type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]

    @staticmethod
    def _attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(f"Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        attr = self._attr(key)
        self._keys[key] = None
        setattr(self, attr, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickled before the dict held objects that are no Parameters: its keys are its parameters'
        state.setdefault("_keys", dict.fromkeys(state.get("_parameters", ())))
        self.__dict__.update(state)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys))

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def values(self) -> Iterable[Any]:
        return [self[k] for k in self._keys]

    def items(self) -> Iterable[tuple[str, Any]]:
        return [(k, self[k]) for k in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    # PyTorch's other dict methods; copies share the Parameter objects
    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last ``(key, value)``."""
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each holding ``default``."""
        return ParameterDict(OrderedDict((k, default) for k in keys))

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict(self.items()))

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

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
        return _parameter_lines(self.items())
