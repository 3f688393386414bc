"""PyTorch's ``nn.utils.parametrize``: a module's tensor computed from others on every access.

``register_parametrization(module, "weight", P)`` moves the parameter to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that returns
``P(original)`` -- recomputed at each read, so gradients reach ``original`` through ``P``. If ``P``
has ``right_inverse``, the original is stored as ``P.right_inverse(weight)`` (which may be a tuple:
``original0``, ``original1``, ...), and assigning ``module.weight = value`` stores
``right_inverse(value)``. As in PyTorch the module's class is swapped for a subclass
``Parametrized<Class>`` holding the properties, and the state dict keys are PyTorch's
(``parametrizations.weight.original``), so a torch state dict loads.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from typing import Any

from ...grad_mode import no_grad
from ...tensor import Tensor
from ..containers import ModuleDict, ModuleList
from ..module import Module, Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "transfer_parametrizations_and_params", "ParametrizationList"]

_cache_depth = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside, each parametrized tensor is computed once and reused (one ``P(original)`` for all
    the reads of a forward, e.g. of an RNN's weight at every step), as PyTorch's ``cached``."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _register_tensor(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start from
    (``original``, or ``original0``, ``original1``, ... when ``right_inverse`` gives a tuple)."""

    def __init__(self, modules: list[Module], original: Tensor, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        # what the parametrized tensor must stay, read before right_inverse's value replaces the original's
        shape, dtype = tuple(original.shape), original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:  # PyTorch's way to say "keep the tensor as it is"
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            # the original keeps its identity (an optimizer may hold it), so it may not change kind
            _check_same_dtype_and_device(new, original)
            if new is not original:
                with no_grad():
                    original.set_(new)  # the same object, new values
            _register_tensor(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(part).__name__}.")
                part = part.detach().requires_grad_(original.requires_grad)
                if isinstance(original, Parameter):
                    part = Parameter(part, requires_grad=original.requires_grad)
                _register_tensor(self, f"original{i}", part)
        if not unsafe:
            self._check_result(shape, dtype)

    def _check_result(self, shape: tuple, dtype: Any) -> None:
        """The parametrized tensor has the registered tensor's ``shape`` and ``dtype``, as PyTorch checks;
        what ``right_inverse`` stores may have another shape (a flattened matrix that ``forward`` reshapes)."""
        value = self()
        if not isinstance(value, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
        for what, before, after in (("dtype", dtype, value.dtype), ("shape", shape, tuple(value.shape))):
            if after != before:  # PyTorch's words, the dtype checked first
                raise ValueError(f"Registering a parametrization may not change the {what} of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized {what}: {before}\n"
                                 f"parametrized {what}: {after}")

    def right_inverse(self, value: Tensor) -> None:
        """Store ``value`` as the tensor(s) the parametrizations would map to it (in place). What
        ``right_inverse`` gives must have the stored tensors' dtypes: a value of another dtype is
        refused, not cast (PyTorch's ValueError)."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                self.original.set_(value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, part in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got element {i} of type "
                                     f"{type(part).__name__}.")
                if part.dtype != original_i.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {part.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
            for i, part in enumerate(value):  # checked all first: a refused value changes none of them
                getattr(self, f"original{i}").set_(part)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _check_same_dtype_and_device(new: Tensor, original: Tensor) -> None:
    """``right_inverse(original)``, when one tensor, replaces the original in place: same dtype and device."""
    if new.dtype != original.dtype:
        raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                         f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
    if new.device != original.device:
        raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the device.\n"
                         f"original.device: {original.device}\nright_inverse(original).device: {new.device}")


def _refuse_pickling(self: Module) -> None:
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(): save "
                       "module.state_dict() and load it into a module parametrized the same way")


def _deepcopy_by_dict(self: Module, memo: dict[int, Any]) -> Module:
    """A deep copy built from the instance dict, as PyTorch's: pickling's ``__getstate__``, which
    :func:`copy.deepcopy` would otherwise call, refuses a parametrized module."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module: Module) -> None:
    cls = module.__class__
    namespace: dict[str, Any] = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_by_dict
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has parametrizations (for ``tensor_name``, if given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    """The module's class before :func:`register_parametrization` swapped it."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def _check_appended(parametrization: Module, value: Tensor, tensor_name: str) -> None:
    """A parametrization added to a chain keeps ``module.<tensor_name>``'s dtype and shape, and so
    does its ``right_inverse`` (PyTorch's checks, which ``unsafe=True`` skips)."""
    out = parametrization(value)
    _refuse_changed("A parametrization must return a tensor. Got {got}.", out, value, tensor_name,
                    "Registering a parametrization may not change the {what} of the tensor",
                    f"parametrization(module.{tensor_name}).{{what}}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        back = parametrization.right_inverse(out)
    except NotImplementedError:
        return
    _refuse_changed("parametrization.right_inverse must return a tensor. Got: {got}", back, value, tensor_name,
                    "The tensor returned by parametrization.right_inverse must have the same {what} as "
                    f"module.{tensor_name}", "returned {what}")


def _refuse_changed(not_a_tensor: str, got: Any, value: Tensor, tensor_name: str, changed: str, what: str) -> None:
    """PyTorch's ValueError where ``got`` is no tensor (``not_a_tensor`` names its type where it says
    ``{got}``), or not of ``value``'s dtype, then shape (``changed`` and ``what`` name which where they
    say ``{what}``): PyTorch's words."""
    if not isinstance(got, Tensor):
        raise ValueError(not_a_tensor.format(got=type(got).__name__))
    for kind, before, after in (("dtype", value.dtype, got.dtype), ("shape", tuple(value.shape), tuple(got.shape))):
        if after != before:
            raise ValueError(f"{changed.format(what=kind)}, unless the `unsafe` flag is enabled.\n"
                             f"module.{tensor_name}.{kind}: {before}\n{what.format(what=kind)}: {after}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` be ``parametrization(original)`` (see the module docstring); a
    second parametrization of the same tensor is applied after the first. ``unsafe`` skips the
    check that the result keeps the tensor's shape and dtype."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            _check_appended(parametrization, getattr(module, tensor_name), tensor_name)
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    return module


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo :func:`register_parametrization` for ``tensor_name``: it becomes a plain parameter
    (or buffer) again, holding the parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                original.set_(getattr(module, tensor_name).detach())
    elif leave_parametrized:
        value = getattr(module, tensor_name).detach()
        original = Parameter(value, requires_grad=plist.original0.requires_grad) \
            if isinstance(plist.original0, Parameter) else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                         "in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Give ``to_module`` the parametrizations of ``from_module`` (of ``tensor_name``, or all) and its
    original tensors -- the same objects, so the two modules share them (PyTorch's, e.g. to carry a
    parametrized weight over to a fused or quantized copy of a layer). A name ``to_module`` lacks is
    first made a parameter holding the parametrized value. Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if source.is_tensor:
            target.original = source.original
        else:
            for i in range(source.ntensors):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
    return to_module
