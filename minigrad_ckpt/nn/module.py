"""``Module`` and ``Parameter``: PyTorch's everyday surface, in plain Python.

A Module registers what you assign to it: a :class:`Parameter` becomes a
parameter, another Module a submodule, and :meth:`Module.register_buffer`
adds state that is saved but not trained (BatchNorm's running statistics).
``state_dict()`` and ``load_state_dict()`` walk that tree with dotted names.
"""

from __future__ import annotations

import inspect
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from .. import __future__ as future
from ..backend import as_dtype, check_memory_format, device_or_dtype, get_device, gpu_target, laid_out
from ..creation import zeros
from ..grad_mode import no_grad
from ..swap import swap_tensors
from ..tensor import Tensor, requires_grad_flag
from ..user_frame import stacklevel_outside_the_engine
from .backward_hooks import call_with_backward_hooks, hook_output_node

__all__ = ["Module", "Parameter", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]


class Parameter(Tensor):
    """A Tensor that is a module's trainable weight (``requires_grad=True`` by default).

    ``Parameter(t)`` takes over ``t``'s array without copying it.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = Tensor._from_data([], dtype="float32")
        if isinstance(data, Tensor):
            self._init_data(())  # a fresh leaf, then hold ``data``'s array: no copy
            self._hold(data.detach())
        else:
            self._init_data(data)
        if requires_grad_flag(requires_grad):
            self.requires_grad = True

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        """A new Parameter with a copy of the values and ``requires_grad`` but no ``.grad``, as PyTorch's
        (``target = copy.deepcopy(model)`` starts without the model's gradients)."""
        new = super().__deepcopy__(memo)
        new.__dict__["_grad"] = None
        return new  # type: ignore[return-value]


class _BufferMeta(type):
    """``isinstance(t, Buffer)``: a tensor made by ``Buffer(...)`` (PyTorch's marks it the same way)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and bool(instance.__dict__.get("_is_buffer", False))


class Buffer(metaclass=_BufferMeta):
    """PyTorch's ``nn.Buffer``: ``self.running = nn.Buffer(t, persistent=False)`` in a module registers
    ``t`` (detached, keeping its ``requires_grad``) as a buffer, as ``register_buffer`` would. What it
    makes is a plain Tensor marked as a buffer, as PyTorch's is."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]
        if data is None:
            data = Tensor._from_data([], dtype="float32")
        t = data.detach().requires_grad_(data.requires_grad)
        t.__dict__.update(persistent=persistent, _is_buffer=True)
        return t


def _empty(*shape: int, dtype: Any = None, device: Any = None) -> Parameter:
    """A zero Parameter of ``shape``: a layer's ``reset_parameters`` fills it."""
    return Parameter(zeros(*shape, dtype=dtype, device=device))


class _HookHandle:
    """What ``register_*_hook`` returns: ``remove()`` takes the hook off (twice is harmless), and as a
    context manager (``with m.register_forward_hook(f): ...``) it removes the hook on exit, as PyTorch's."""

    def __init__(self, hooks: dict, key: int, *extra: dict) -> None:
        self._hooks, self._key, self._extra = hooks, key, extra
        self.id = key

    def hooks_dict_ref(self) -> dict:
        """The registry the hook is in (PyTorch's ``RemovableHandle.hooks_dict_ref``, a weak reference
        there, called the same way: ``handle.id in handle.hooks_dict_ref()``)."""
        return self._hooks

    @property
    def extra_dict_ref(self) -> tuple:
        """The registries of the hook's options, as PyTorch's tuple of references to call."""
        return tuple((lambda d=d: d) for d in self._extra)

    def remove(self) -> None:
        self._hooks.pop(self._key, None)
        for d in self._extra:  # the hook's options (with_kwargs, always_call)
            d.pop(self._key, None)

    def __enter__(self) -> _HookHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _ForwardCall:
    """One module call's progress, for its ``always_call`` forward hooks should it raise: the hooks that
    ran, and the output so far (forward's, as the hooks before the one that raised left it)."""

    __slots__ = ("ran", "output")

    def __init__(self) -> None:
        self.ran: set[int] = set()
        self.output: Any = None


# Hooks of every module (PyTorch's ``torch.nn.modules.module.register_module_*_hook``): they run before
# each module's own, in registration order; ids share Module._hook_counter, so one set of options serves.
_global_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_backward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_backward_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_hooks_with_kwargs: dict[int, bool] = {}
_global_hooks_always_called: dict[int, bool] = {}
_global_hook_ids: dict[int, bool] = {}  # all of them: one look in a module call without hooks


def _add_global_hook(store: OrderedDict[int, Callable], hook: Callable, with_kwargs: bool = False,
                     always_call: bool = False) -> _HookHandle:
    Module._hook_counter += 1
    key = Module._hook_counter
    store[key] = hook
    _global_hook_ids[key] = True
    if with_kwargs:
        _global_hooks_with_kwargs[key] = True
    if always_call:
        _global_hooks_always_called[key] = True
    return _HookHandle(store, key, _global_hooks_with_kwargs, _global_hooks_always_called, _global_hook_ids)


def register_module_forward_pre_hook(hook: Callable) -> _HookHandle:
    """``hook(module, args)`` before every module's ``forward`` (before the module's own pre-hooks), as
    PyTorch's: it may return new ``args`` (a non-tuple is wrapped in one).  For profilers and summaries;
    ``handle.remove()`` takes it off."""
    return _add_global_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> _HookHandle:
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with ``with_kwargs``) after
    every module's ``forward``, before the module's own forward hooks, as PyTorch's: a value it returns
    replaces the output; with ``always_call`` it runs (with ``output=None``) even when ``forward`` raises."""
    return _add_global_hook(_global_forward_hooks, hook, with_kwargs, always_call)


def register_module_full_backward_pre_hook(hook: Callable) -> _HookHandle:
    """``hook(module, grad_output)`` for every module, as :meth:`Module.register_full_backward_pre_hook`
    (before the module's own)."""
    return _add_global_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> _HookHandle:
    """``hook(module, grad_input, grad_output)`` for every module, as
    :meth:`Module.register_full_backward_hook` (before the module's own)."""
    _global_backward_hook_kind(True)
    return _add_global_hook(_global_backward_hooks, hook)


def register_module_backward_hook(hook: Callable) -> _HookHandle:
    """PyTorch's deprecated global backward hook: ``hook(module, grad_input, grad_output)`` for every
    module, as :meth:`Module.register_backward_hook` -- on the node that made the module's first output,
    before the module's own.  PyTorch advises :func:`register_module_full_backward_hook`; the hooks of
    every module are of one kind or the other."""
    _global_backward_hook_kind(False)
    return _add_global_hook(_global_backward_hooks, hook)


_global_is_full_backward_hook = True  # the kind of the global backward hooks, as PyTorch names it


def _global_backward_hook_kind(full: bool) -> None:
    """PyTorch's refusal of both kinds of global backward hook.  PyTorch's choice lasts as long as the
    process, even after every hook is removed; here it lasts while a hook of that kind is registered,
    so one program (or test) that used the old kind does not forbid the full kind to every later one."""
    global _global_is_full_backward_hook
    if _global_backward_hooks and _global_is_full_backward_hook is not full:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _global_is_full_backward_hook = full


# Hooks that see each parameter, buffer and submodule as a module registers it (PyTorch's
# register_module_*_registration_hook): building a model runs Module.__setattr__ for each, so an empty
# registry costs it one truth test.
_global_parameter_registration_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_buffer_registration_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_module_registration_hooks: OrderedDict[int, Callable] = OrderedDict()


def _add_registration_hook(store: OrderedDict[int, Callable], hook: Callable) -> _HookHandle:
    Module._hook_counter += 1
    store[Module._hook_counter] = hook
    return _HookHandle(store, Module._hook_counter)


def _registered(hooks: OrderedDict[int, Callable], module: Module, name: str, value: Any) -> Any:
    """What ``module`` registers as ``name``: ``value`` through the registration ``hooks`` in order,
    each seeing the one before's replacement; a hook that returns None keeps the value.  What a hook
    returns is not checked, as in PyTorch."""
    for hook in list(hooks.values()):
        new = hook(module, name, value)
        if new is not None:
            value = new
    return value


def register_module_parameter_registration_hook(hook: Callable) -> _HookHandle:
    """``hook(module, name, param)`` whenever any module registers a parameter -- ``register_parameter``
    or ``module.name = Parameter(...)``, so every layer's weights as it is built, a ``ParameterList``'s
    entries, ``load_state_dict(assign=True)`` -- before it is stored; a value it returns is stored
    instead.  As PyTorch's, registering ``None`` calls no hook.  ``handle.remove()`` takes it off."""
    return _add_registration_hook(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable) -> _HookHandle:
    """``hook(module, name, buffer)`` whenever any module registers a buffer -- ``register_buffer``,
    ``module.name = nn.Buffer(t)``, or assigning a tensor (or None) to a buffer's name -- before it is
    stored; a value it returns is stored instead.  As PyTorch's, ``None`` is heard too
    (``BatchNorm(track_running_stats=False)``'s three buffers)."""
    return _add_registration_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> _HookHandle:
    """``hook(module, name, submodule)`` whenever any module registers a submodule -- ``add_module``,
    ``register_module``, ``module.name = Linear(...)``, a container's ``append`` -- before it is stored;
    a value it returns is stored instead.  As PyTorch's, ``None`` is heard too; a container's ``insert``
    (which renumbers) is not."""
    return _add_registration_hook(_global_module_registration_hooks, hook)


class _IncompatibleKeys(NamedTuple):
    """What :meth:`Module.load_state_dict` returns: PyTorch's named pair of key lists."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


def _key_problems(strict: bool, missing: list[str], unexpected: list[str]) -> list[str]:
    """What ``strict`` loading says of the keys that did not match, in PyTorch's words (so a program that
    looks for ``'Missing key(s) in state_dict'`` in the message finds it)."""
    problems = []
    if strict and missing:
        problems.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
    if strict and unexpected:
        problems.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
    return problems


def _call_load_pre_hooks(module: Module, state_dict: Any, prefix: str, *rest: Any) -> None:
    """``module``'s load pre-hooks with PyTorch's arguments ``(state_dict, prefix, local_metadata,
    strict, missing_keys, unexpected_keys, error_msgs)``, the module first for the public form."""
    public = module.__dict__.get("_public_hooks", {})
    for key, hook in list(module.__dict__.get("_load_state_dict_pre_hooks", {}).items()):
        if key in public:  # registered with the module as its first argument
            hook(module, state_dict, prefix, *rest)
        else:
            hook(state_dict, prefix, *rest)


def _uninitialized(t: Any) -> bool:
    """Whether ``t`` is an uninitialized parameter or buffer of a lazy layer, which has no shape
    (``nn.parameter.is_lazy``; its module, ``uninitialized.py``, builds on this one)."""
    return hasattr(type(t), "materialize")


def zero_gradient_in_place(grad: Tensor) -> None:
    """PyTorch's ``zero_grad(set_to_none=False)`` of one gradient: zeros in the same tensor. A gradient
    built with ``create_graph`` first leaves the tape (``detach_``); any other only stops requiring
    grad, as PyTorch's -- it has no history to leave, and a view (a gradient assigned as a slice of
    a flat buffer) cannot be detached in place."""
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()


class Module:
    """Base class of every layer and model.

    Subclasses set parameters and submodules as attributes in ``__init__``
    and define ``forward``; calling the module runs its forward hooks and
    ``forward``.
    """

    _hook_counter = 0
    #: PyTorch's state-dict format version of a module class (``local_metadata["version"]`` in hooks)
    _version: int = 1
    #: PyTorch's switch for cooperative multiple inheritance: True makes ``Module.__init__`` pass its
    #: arguments on to the next class of the MRO (a mixin after Module), which otherwise is an error
    call_super_init: bool = False
    #: PyTorch's old switch for source-change warnings when a whole pickled module is loaded; kept
    #: for code that sets or reads it (a pickled module holds no source here)
    dump_patches: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (args or kwargs) and not self.call_super_init:
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_hooks_with_kwargs", {})   # hook key -> True: called with the kwargs too
        object.__setattr__(self, "_hooks_always_called", {})  # hook key -> True: run even if forward raises
        object.__setattr__(self, "training", True)
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        """PyTorch's registration rules: a Parameter, Module or buffer assigned to a name keeps that name's
        place in ``state_dict()`` and ``parameters()`` (tying ``decoder.weight = encoder.weight`` does not
        reorder an optimizer's parameters), and a name that holds a parameter, module or buffer takes only
        its own kind (or None): anything else is a TypeError, as in PyTorch, not a plain attribute."""
        if "_parameters" not in self.__dict__:
            # before Module.__init__, as in PyTorch, only what would be registered is refused: timm's
            # DenseNet sets self.num_classes first
            if isinstance(value, Buffer):
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if isinstance(value, (Parameter, Module)):
                raise AttributeError(
                    f"cannot assign {'parameters' if isinstance(value, Parameter) else 'module'} {name!r} before "
                    f"Module.__init__() call (call super().__init__() first in {type(self).__name__}.__init__)")
            object.__setattr__(self, name, value)
            return
        params, modules, buffers = self._parameters, self._modules, self._buffers
        if isinstance(value, Parameter):
            self._forget(name, modules, buffers)
            if _global_parameter_registration_hooks:
                value = _registered(_global_parameter_registration_hooks, self, name, value)
            params[name] = value
        elif name in params:
            self._check_kind(name, value, "parameter", "nn.Parameter")
            params[name] = None  # (PyTorch's registration hooks do not hear a parameter's None)
        elif isinstance(value, Module):
            self._forget(name, params, buffers)
            if _global_module_registration_hooks:
                value = _registered(_global_module_registration_hooks, self, name, value)
            modules[name] = value
        elif name in modules:
            self._check_kind(name, value, "child module", "nn.Module")
            if _global_module_registration_hooks:
                value = _registered(_global_module_registration_hooks, self, name, value)
            modules[name] = value
        elif isinstance(value, Buffer):  # PyTorch's: a plain attribute of that name is a KeyError
            self._register_assigned_buffer(name, value)
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                self._check_kind(name, value, "buffer", "Tensor")
            if _global_buffer_registration_hooks:
                value = _registered(_global_buffer_registration_hooks, self, name, value)
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _register_assigned_buffer(self, name: str, value: Buffer) -> None:
        """``self.name = nn.Buffer(t)`` goes through ``register_buffer``, so an override is heard. A
        subclass whose override lacks ``persistent`` (written before PyTorch had it) still works, as in
        PyTorch: it is called without it, and a non-persistent Buffer is refused rather than silently
        made persistent."""
        register = self.register_buffer
        if (type(self).register_buffer is Module.register_buffer
                or "persistent" in inspect.signature(register).parameters):
            register(name, value, value.persistent)
        elif not value.persistent:
            raise RuntimeError("Registering a non-persistent buffer on a Module subclass that implements "
                               "register_buffer() without the persistent argument is not allowed.")
        else:
            register(name, value)

    def _forget(self, name: str, *stores: dict) -> None:
        """Drop ``name`` from the other registries (and the instance dict) before it is registered anew."""
        self.__dict__.pop(name, None)
        for store in stores:
            if name in store:
                del store[name]
                self._non_persistent.discard(name)

    @staticmethod
    def _check_kind(name: str, value: Any, kind: str, expected: str) -> None:
        if value is not None:
            raise TypeError(f"cannot assign {type(value).__name__!r} as {kind} {name!r} ({expected} or None expected)")

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        params = d.get("_parameters")  # (a layer's weight and bias, each call: before the loop over the stores)
        if params is not None and name in params:
            return params[name]
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent.discard(name)
                return
        object.__delattr__(self, name)

    def _check_new_name(self, name: Any, kind: str, store: dict) -> None:
        """PyTorch's checks on a name to register: a non-empty str with no '.', not already a plain
        attribute (a parameter, buffer or module of the same kind is replaced)."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:  # PyTorch's add_module alone names it
            raise KeyError(f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module" else ""))
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in store:  # a method or class attribute too, as PyTorch's
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        if param is not None and _global_parameter_registration_hooks:
            param = _registered(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add state that is part of ``state_dict`` (if persistent) but not trained."""
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if _global_buffer_registration_hooks:
            tensor = _registered(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def register_module(self, name: str, module: Module | None) -> None:
        """Add ``module`` as the child ``name`` (``add_module`` is the same)."""
        if module is not None and not isinstance(module, Module):
            kind = type(module)  # PyTorch's torch.typename: a builtin's bare name, else the qualified one
            name_of = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
            raise TypeError(f"{name_of} is not a Module subclass")
        self._check_new_name(name, "module", self._modules)
        if _global_module_registration_hooks:
            module = _registered(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    add_module = register_module

    # ----------------------------------------------------------------- calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{self._get_name()}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        backward_hooks = self.__dict__.get("_backward_hooks")
        pre_hooks = self.__dict__.get("_backward_pre_hooks")
        if not (self._forward_pre_hooks or self._forward_hooks or backward_hooks or pre_hooks or _global_hook_ids):
            return self.forward(*args, **kwargs)  # the usual case: no hooks
        called = _ForwardCall()  # which always-called forward hooks ran, and the output so far
        try:
            args, kwargs = self._run_forward_pre_hooks(args, kwargs)
            backward, old_style = self._backward_hooks_by_kind(backward_hooks)
            backward_pre = [*_global_backward_pre_hooks.values(), *(pre_hooks or {}).values()]
            if backward or backward_pre:  # after the pre-hooks: grad_input is w.r.t. what forward gets (PyTorch's)
                out = call_with_backward_hooks(self, backward, args, lambda a: self._call_forward(a, kwargs, called),
                                               backward_pre)
            else:
                out = self._call_forward(args, kwargs, called)
            return hook_output_node(self, args, out, old_style) if old_style else out
        except Exception:
            self._run_always_called_hooks(args, kwargs, called)
            raise

    def _backward_hooks_by_kind(self, own_hooks: dict | None) -> tuple[list[Callable], list[Callable]]:
        """This call's full backward hooks and old-style (``register_backward_hook``) ones: every
        module's first, then the module's own, each where it is of that kind (PyTorch's
        ``_get_backward_hooks``)."""
        full: list[Callable] = []
        old_style: list[Callable] = []
        if _global_backward_hooks:
            (full if _global_is_full_backward_hook else old_style).extend(_global_backward_hooks.values())
        if own_hooks:
            (old_style if self.__dict__.get("_is_full_backward_hook") is False else full).extend(own_hooks.values())
        return full, old_style

    def _run_forward_pre_hooks(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The arguments ``forward`` gets: each forward pre-hook (every module's first) may replace them."""
        with_kwargs = self.__dict__.get("_hooks_with_kwargs", {})
        for key, hook in [*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()]:
            if key in with_kwargs:
                r = hook(self, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {r}.")
                    args, kwargs = r
            else:
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        return args, kwargs

    def _forward_hooks_here(self) -> list[tuple[int, Callable, bool, bool]]:
        """``(key, hook, with_kwargs, always_call)`` of every forward hook this call runs, in order."""
        with_kwargs = self.__dict__.get("_hooks_with_kwargs", {})
        always = self.__dict__.get("_hooks_always_called", {})
        return [(key, hook, key in with_kwargs or key in _global_hooks_with_kwargs,
                 key in always or key in _global_hooks_always_called)
                for key, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]]

    def _call_forward(self, args: tuple, kwargs: dict, called: _ForwardCall) -> Any:
        """``forward`` (on the arguments the pre-hooks gave) with the forward hooks after it."""
        out = called.output = self.forward(*args, **kwargs)
        for key, hook, with_kwargs, always in self._forward_hooks_here():
            if always:
                called.ran.add(key)
            r = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
            if r is not None:
                out = called.output = r
        return out

    def _run_always_called_hooks(self, args: tuple, kwargs: dict, called: _ForwardCall) -> None:
        """PyTorch's ``always_call`` forward hooks that did not run, when the call raised (a pre-hook,
        ``forward`` or a hook): each with the output so far (``None`` if forward did not return; what one
        returns is the output the next sees), as PyTorch's; what one raises is a warning, the call's own
        error is the one raised."""
        for key, hook, with_kwargs, always in self._forward_hooks_here():
            if always and key not in called.ran:
                try:
                    out = called.output
                    r = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
                    called.output = out if r is None else r
                except Exception as exc:  # noqa: BLE001  (the call's own error wins, as PyTorch's)
                    warnings.warn(f"module forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {exc}",
                                  stacklevel=stacklevel_outside_the_engine())

    def _add_hook(self, store: dict, hook: Callable, prepend: bool, with_kwargs: bool,
                  always_call: bool = False) -> _HookHandle:
        Module._hook_counter += 1
        key = Module._hook_counter
        store[key] = hook
        if prepend:
            store.move_to_end(key, last=False)  # type: ignore[attr-defined]
        options = (self.__dict__.setdefault("_hooks_with_kwargs", {}),
                   self.__dict__.setdefault("_hooks_always_called", {}))
        if with_kwargs:
            options[0][key] = True
        if always_call:
            options[1][key] = True
        return _HookHandle(store, key, *options)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> _HookHandle:
        """``hook(module, args, output)`` after every forward (``hook(module, args, kwargs, output)``
        with ``with_kwargs``); may return a new output.  ``prepend`` puts it before the hooks already
        there; ``always_call`` runs it (with ``output=None``) even when forward raises."""
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs, always_call)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> _HookHandle:
        """``hook(module, grad_input, grad_output)`` once the gradients with respect to this module's
        positional inputs are computed (None for a non-tensor; zeros for a tensor that does not require
        grad or that no gradient reached, as PyTorch's); ``grad_output`` holds the gradients with respect
        to its outputs.  The hook may return a new ``grad_input``."""
        self._backward_hook_kind(True)
        return self._add_hook(self.__dict__.setdefault("_backward_hooks", OrderedDict()), hook, prepend, False)

    def register_backward_hook(self, hook: Callable) -> _HookHandle:
        """PyTorch's deprecated backward hook: ``hook(module, grad_input, grad_output)`` on the node that
        made the module's (first) output -- ``grad_input`` that node's input gradients (its
        ``grad_fn.register_hook``'s), which are the module's inputs' only where its forward is one op;
        ``grad_output`` the gradient of that output.  It may return new ``grad_input``.  PyTorch advises
        :meth:`register_full_backward_hook`; a module takes one kind or the other."""
        self._backward_hook_kind(False)
        return self._add_hook(self.__dict__.setdefault("_backward_hooks", OrderedDict()), hook, False, False)

    def _backward_hook_kind(self, full: bool) -> None:
        """PyTorch's refusal of both kinds of backward hook on one module (``_is_full_backward_hook``)."""
        if self.__dict__.get("_is_full_backward_hook", full) is not full:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", full)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> _HookHandle:
        """``hook(module, grad_output)`` when the gradients with respect to this module's outputs are
        known (None for an output no gradient reached), before they enter the module; it may return a
        new ``grad_output`` (a tuple as long), which the module's backward then uses."""
        return self._add_hook(self.__dict__.setdefault("_backward_pre_hooks", OrderedDict()), hook, prepend,
                              False)

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> _HookHandle:
        """``hook(module, args)`` before every forward; may return new args (a tuple, or one value).
        With ``with_kwargs``, ``hook(module, args, kwargs)``, which may return ``(new_args, new_kwargs)``."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    # --------------------------------------------------------------- traversal
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module and every submodule, parents first.

        A module reachable under two names (one block used twice) appears once, under its first
        name, unless ``remove_duplicate=False``, as in PyTorch."""
        if remove_duplicate:
            memo = set() if memo is None else memo
            if self in memo:  # the modules themselves, as PyTorch (a caller's memo may be read afterwards)
                return
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is this module), as PyTorch's:
        ``net.get_submodule("encoder.layers.0")``; an AttributeError names the missing step."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target`` (model surgery: ``net.set_submodule("blocks.0.act",
        nn.GELU())``), as PyTorch's: the parents must exist; with ``strict`` the last name must too; a name
        that holds something other than a module is an AttributeError."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        *path, name = target.split(".")
        parent = self.get_submodule(".".join(path))
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"encoder.0.weight"``), as PyTorch's."""
        return self._get_member(target, "_parameters", "parameter")  # type: ignore[return-value]

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``), as PyTorch's."""
        return self._get_member(target, "_buffers", "buffer")

    def _get_member(self, target: str, store: str, kind: str) -> Tensor:
        """PyTorch's words: a name the module lacks, then one that is something else."""
        owner, _, name = target.rpartition(".")
        mod = self.get_submodule(owner)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        member = getattr(mod, name)
        if store == "_parameters" and not isinstance(member, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        if store == "_buffers" and name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return member

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, child)`` for each direct submodule; a module held under two names comes once (its
        first), as PyTorch: ``apply`` and ``train`` then visit a shared block once."""
        seen: set[int] = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named(self, store: str, prefix: str, recurse: bool,
               remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, t in getattr(m, store).items():
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield (f"{mprefix}.{name}" if mprefix else name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a parameter shared by two modules (tied weights) appears
        once, under its first name, unless ``remove_duplicate=False``."""
        yield from self._named("_parameters", prefix, recurse, remove_duplicate)  # type: ignore[misc]

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        cls = type(self)
        if cls.named_parameters is not Module.named_parameters or cls.named_modules is not Module.named_modules:
            for _, p in self.named_parameters(recurse=recurse):  # an override decides, as in PyTorch
                yield p
            return
        # named_parameters' walk without building the names nobody reads (zero_grad, every step)
        seen: set[int] = set()
        for m in self._unique_modules() if recurse and self._modules else (self,):  # (a leaf module: no walk)
            for p in m._parameters.values():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield p

    def _unique_modules(self) -> Iterator[Module]:
        """``named_modules()``'s modules, in its order (parents first), without their names."""
        memo: set[int] = set()
        stack: list[Module] = [self]
        while stack:
            m = stack.pop()
            if id(m) in memo:
                continue
            memo.add(id(m))
            yield m
            stack.extend(reversed([c for c in m._modules.values() if c is not None]))

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and on ``self``."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> Module:
        """Set training mode (dropout active, batch norm uses batch statistics) here and, by calling
        each child's own ``train(mode)`` as PyTorch does, in every submodule: a child that overrides
        ``train`` (to keep its batch norm frozen, say) is asked, not bypassed."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad`` (to None, or to zeros)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                zero_gradient_in_place(p.grad)

    # ------------------------------------------------------------ conversion
    def to(self, target: Any = None, dtype: Any = None, non_blocking: bool = False, *, device: Any = None,
           memory_format: Any = None, copy: bool = False) -> Module:
        """Move parameters and buffers to a device and/or cast floating ones to a dtype, in place:
        PyTorch's forms ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` (that
        tensor's device and dtype) and the keywords ``to(device=..., dtype=...)``;
        ``memory_format=mg.channels_last`` lays out the 4-d ones (convolution weights) channels
        innermost, as PyTorch's (their values do not change).  ``copy=True`` is PyTorch's
        RuntimeError: a module converts in place.

        Parameters keep their identity (an optimizer built before ``to`` still
        holds them).  Integer buffers (``num_batches_tracked``) are never cast.
        A complex dtype casts the complex tensors too (``to(mg.complex128)``, as
        PyTorch); a real one leaves them complex (PyTorch would drop their
        imaginary parts).
        """
        del non_blocking  # PyTorch's: copies here are synchronous
        if copy:
            raise RuntimeError(".to() does not accept copy argument")
        dev, dt = None, None
        if isinstance(target, Tensor):  # PyTorch's to(tensor): its device and dtype, and nothing besides
            if dtype is not None or device is not None:
                raise TypeError("to() received an invalid combination of arguments: to(tensor) takes no "
                                "dtype or device besides")
            target, dtype = target.device, target.dtype
        if target is not None and device is not None:
            raise TypeError("to() received an invalid combination of arguments: a device given twice "
                            f"({target!r} and device={device!r})")
        if target is not None:
            dev, dt = device_or_dtype(target)
        if device is not None:
            dev = get_device(device)
        if dtype is not None:
            dt = as_dtype(dtype)
        if dt is not None and dt.kind not in "fc":  # PyTorch's refusal: an integer model has no gradients
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dt}")

        def cast(kind: str) -> bool:
            return dt is not None and (kind == "f" or kind == dt.kind == "c")

        def converted(t: Tensor) -> Tensor:
            new = t
            if cast(t.dtype.kind) and t.dtype != dt:
                new = Tensor._from_data(new, dtype=dt)
            if dev is not None and new.device is not dev:
                new = Tensor._from_data(new, device=dev)
            if memory_format is not None and new.ndim in (4, 5):  # (PyTorch lays out those alone)
                check_memory_format("to", memory_format, new.ndim)
                arr = laid_out(new._data, memory_format, copy=new is not t)
                new = new if arr is new._data else Tensor.constant(arr, new.device)
            return new

        def convert(t: Tensor) -> None:
            new = converted(t)
            if new is not t:
                t._hold(new)
                if t._grad is not None:  # the gradient tensor keeps its identity too (PyTorch's grad.data = ...)
                    t._grad._hold(converted(t._grad))  # (._grad: a non-leaf buffer's .grad would warn)

        with no_grad():
            self._convert_tree(convert, converted, converted)
        return self

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """PyTorch's: every parameter and buffer made anew on ``device``, its values unspecified (zeros
        here), keeping its identity, shape and dtype -- how a model built on the ``meta`` device gets
        memory (then ``load_state_dict`` or its ``reset_parameters``).  ``recurse=False``: this module's
        own tensors only."""
        dev = get_device(device)

        def converted(t: Tensor) -> Tensor:
            return Tensor.constant(dev.xp.zeros(t.shape, dtype=t.dtype), dev)

        def convert(t: Tensor) -> None:
            t.set_(converted(t))
            if t._grad is not None:  # PyTorch's _apply makes the gradient anew too (empty_like: its values
                t._grad = converted(t._grad)  # unspecified, zeros here), on the device, of its shape and dtype

        with no_grad():
            if recurse:
                self._convert_tree(convert, converted, None)
            else:
                self._convert_own(convert, converted, None)
        return self

    def _convert_tree(self, convert: Callable[[Tensor], None], converted: Callable[[Tensor], Tensor],
                      grad_converted: Callable[[Tensor], Tensor] | None) -> None:
        """``convert`` every parameter and buffer in place, keeping each one's identity -- except in a
        subtree whose module overrides :meth:`_apply` (to convert tensors of its own too), which gets
        ``_apply(converted)`` as PyTorch's ``to`` gives it."""
        if type(self)._apply is not Module._apply:
            self._apply(converted)
            return
        self._convert_own(convert, converted, grad_converted)
        for child in self.children():
            child._convert_tree(convert, converted, grad_converted)

    def _convert_own(self, convert: Callable[[Tensor], None], converted: Callable[[Tensor], Tensor],
                     grad_converted: Callable[[Tensor], Tensor] | None) -> None:
        """This module's own parameters and buffers: ``convert`` in place, or a parameter replaced as
        ``mg.__future__``'s switches ask (its gradient through ``grad_converted``; None drops it)."""
        switched = (future.get_swap_module_params_on_conversion()
                    or future.get_overwrite_module_params_on_conversion())  # (read once: a no-op to() is per tensor)
        for store in (self._parameters, self._buffers):
            for key, t in (list(store.items()) if switched else store.items()):
                if t is not None and not (switched and store is self._parameters and
                                          self._replace_parameter(key, t, converted, grad_converted)):
                    convert(t)

    def _replace_parameter(self, key: str, param: Tensor, converted: Callable[[Tensor], Tensor],
                           grad_converted: Callable[[Tensor], Tensor] | None) -> bool:
        """Put ``converted(param)`` in the place of parameter ``key`` as ``mg.__future__`` asks: swapped
        into ``param`` (it keeps its identity and takes the new contents whole, PyTorch's
        ``swap_tensors`` path) or a new ``Parameter`` object (the overwrite switch); its gradient, if
        ``grad_converted``, likewise (a swapped one keeps its identity too).  False, having done
        nothing, when neither switch is on: the caller gives ``param`` its new values in place."""
        swap = future.get_swap_module_params_on_conversion()
        if not swap and not future.get_overwrite_module_params_on_conversion():
            return False
        new, grad = converted(param), param.grad
        new_grad = None if grad is None or grad_converted is None else grad_converted(grad)
        if new is param and new_grad is grad:
            return True  # (already what was asked: nothing to put in its place)
        new = Parameter(new, requires_grad=param.requires_grad)
        if not swap:
            self._parameters[key] = new
            new.grad = new_grad
            return True
        param.grad = None  # (the swapped-in contents come without a gradient; the old one is put back)
        try:
            swap_tensors(param, new)
        except Exception as e:
            param.grad = grad
            raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
        if new_grad is not None:
            try:
                swap_tensors(grad, new_grad)
            except Exception as e:
                raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}.grad") from e
            param.grad = grad
        return True

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """PyTorch's ``_apply``: ``fn`` on every parameter, its gradient and every buffer (the children's
        too with ``recurse``), without recording gradients.  A parameter and its gradient keep their
        identity and take ``fn``'s value (PyTorch's ``param.data = fn(param)``); a buffer is replaced by
        what ``fn`` returns."""
        if recurse:
            for child in self.children():
                child._apply(fn)
        with no_grad():
            for key, p in list(self._parameters.items()):
                if p is None or self._replace_parameter(key, p, fn, fn):
                    continue
                new = fn(p)
                if new is not p:
                    p._hold(new)
                if p.grad is not None:
                    g = fn(p.grad)
                    if g is not p.grad:
                        p.grad._hold(g)
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def _get_name(self) -> str:
        """The class's name, as PyTorch's ``repr`` uses it."""
        return type(self).__name__

    @property
    def _non_persistent_buffers_set(self) -> set[str]:
        """PyTorch's name of the set of buffer names that ``state_dict()`` leaves out (the same set)."""
        return self._non_persistent

    def float(self) -> Module:
        return self.to(dtype="float32")

    def double(self) -> Module:
        return self.to(dtype="float64")

    def half(self) -> Module:
        return self.to(dtype="float16")

    def bfloat16(self) -> Module:
        """Refused: NumPy (and so the engine) has no bfloat16; ``half()`` gives float16, ``float()``
        float32."""
        raise TypeError("Module.bfloat16: the engine computes with NumPy, which has no bfloat16 dtype; use "
                        ".half() (float16) or .float() (float32)")

    def type(self, dst_type: Any) -> Module:
        """Cast *every* parameter and buffer to ``dst_type`` (a dtype, or a name such as
        ``'torch.DoubleTensor'``), in place, as PyTorch's ``Module.type``: integer buffers too
        (``num_batches_tracked``), unlike :meth:`to`. A parameter that requires grad cannot become an
        integer tensor (PyTorch's RuntimeError, raised before anything changes)."""
        with no_grad():  # (a cast recorded on the tape would hold the parameter: no swap could take it)
            pairs = [(t, t.type(dst_type)) for m in self.modules() for store in (m._parameters, m._buffers)
                     for t in store.values() if t is not None]
        for t, new in pairs:
            if t.requires_grad and new.dtype.kind not in "fc":
                raise RuntimeError("data set to a tensor that requires gradients must be floating point or "
                                   "complex dtype")
        made = {id(t): new for t, new in pairs}

        def converted(t: Tensor) -> Tensor:
            return made[id(t)] if id(t) in made else t.type(dst_type)

        def convert(t: Tensor) -> None:
            new = converted(t)
            if new is not t:
                t._hold(new)
                if t._grad is not None:  # (._grad: a non-leaf buffer's .grad would warn)
                    t._grad._hold(t._grad.type(dst_type))

        with no_grad():  # (through mg.__future__'s switches, as PyTorch's type goes through its _apply)
            self._convert_tree(convert, converted, converted)
        return self

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """PyTorch's in-place ``model.compile(...)``: as :func:`minigrad_ckpt.compile`, there is nothing
        to compile here (ops run as NumPy calls); the options are accepted and the module runs as it is."""
        del args, kwargs

    def cpu(self) -> Module:
        return self.to("cpu")

    def share_memory(self) -> Module:
        """PyTorch's ``model.share_memory()`` (Hogwild: processes training one model in shared memory)
        is refused: a tensor here is a NumPy or CuPy array of one process, and a process started by
        ``mg.multiprocessing`` gets a copy.  Dropping the call would train a copy in each process, and
        the parent's model would stay untrained without a word; this says so instead."""
        raise RuntimeError(
            "share_memory: minigrad_ckpt has no shared-memory tensors (a process started by mg.multiprocessing "
            "trains its own copy of the model). Train one model over several processes with "
            "mg.nn.parallel.DistributedDataParallel (docs/distributed.md), which averages every gradient")

    def cuda(self, device: Any = None) -> Module:
        """The module on GPU ``device`` (an index or ``"cuda:i"``; default: the current GPU,
        ``mg.cuda.set_device``'s).  A CPU device is refused, as PyTorch's ``t.cuda(device)`` refuses
        it for each parameter (PyTorch lets a module without any pass)."""
        return self.to(gpu_target(device))

    # ------------------------------------------------------------- state dict
    def _walk(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """``(key prefix, module)`` as PyTorch's state dicts walk the tree: every path, so a module
        used twice is saved (and loaded) under both names, and ``prefix`` is glued on as given."""
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m._walk(f"{prefix}{name}.")

    def state_dict(self, *args: Any, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict[str, Tensor]:
        """Every parameter and persistent buffer by dotted name (detached and sharing memory, or the
        live tensors with ``keep_vars=True``), added to ``destination`` if given.

        As in PyTorch, ``prefix`` is put before each key as it is (``prefix="model."`` gives
        ``"model.0.weight"``) and a module reachable by two paths appears under both.  Each child's
        own ``state_dict`` is called (with ``destination=``, ``prefix=``, ``keep_vars=``), so a
        subclass that overrides it is heard; PyTorch's deprecated positional form
        ``state_dict(destination, prefix, keep_vars)`` works, with its FutureWarning."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=stacklevel_outside_the_engine())
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        out: Any = destination
        if out is None:
            out = OrderedDict()
            out._metadata = OrderedDict()  # each module's format version, by path (PyTorch's)
        return self._save_state(out, prefix, keep_vars)

    def _save_state(self, out: Any, prefix: str, keep_vars: bool) -> Any:
        """PyTorch's order: this module's state-dict pre-hooks, its own entries, its children's, then its
        post-hooks. A hook registered with the private ``_register_state_dict_hook`` may return a new
        dict (kept at the root only, as PyTorch); a public post-hook must return None."""
        local_metadata = {"version": self._version}
        if hasattr(out, "_metadata"):  # read back by a module's _load_from_state_dict (an older format)
            out._metadata[prefix[:-1]] = local_metadata
        for hook in self.__dict__.get("_state_dict_pre_hooks", {}).values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(out, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:  # (what a child's private hook returns stays the child's, as PyTorch's)
                m.state_dict(destination=out, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        public = self.__dict__.get("_public_hooks", {})
        for key, hook in self.__dict__.get("_state_dict_hooks", {}).items():
            result = hook(self, out, prefix, local_metadata)
            if result is not None and key in public:
                raise RuntimeError("state_dict post-hook must return None")
            out = out if result is None else result
        return out

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """This module's own entries (not its children's), under PyTorch's name and signature, so that a
        subclass overriding it (to save a derived form of a weight) is heard by ``state_dict()``."""
        out = destination
        for name, t in self._parameters.items():
            if t is not None:
                out[prefix + name] = t if keep_vars else t.detach()
        for name, t in self._buffers.items():
            if t is not None and name not in self._non_persistent:
                out[prefix + name] = t if keep_vars else t.detach()
        if self._saves_extra_state():
            out[prefix + "_extra_state"] = self.get_extra_state()

    def _own_state(self) -> OrderedDict[str, Any]:
        """The keys ``load_state_dict`` expects, without running any hook: each module's tensors (whatever
        an override of ``_save_to_state_dict`` saves), then its ``_extra_state`` if it can take one back
        (it overrides ``set_extra_state``: PyTorch asks for the key on loading by that, not by
        ``get_extra_state``, so a module that only saves it finds the key unexpected)."""
        out: OrderedDict[str, Any] = OrderedDict()
        for p, m in self._walk():
            for store in (m._parameters, m._buffers):
                for name, t in store.items():
                    if t is not None and not (store is m._buffers and name in m._non_persistent):
                        out[p + name] = t if _uninitialized(t) else t.detach()
            if m._loads_extra_state():
                out[p + "_extra_state"] = None
        return out

    # ------------------------------------------------------- state-dict hooks
    def register_state_dict_pre_hook(self, hook: Callable) -> _HookHandle:
        """``hook(module, prefix, keep_vars)`` before this module's entries are put in a state dict."""
        return self._add_hook(self.__dict__.setdefault("_state_dict_pre_hooks", OrderedDict()), hook, False,
                              False)

    def register_state_dict_post_hook(self, hook: Callable) -> _HookHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` once this module's entries (its
        children's too) are in the state dict; it may change the dict in place and must return None."""
        handle = self._register_state_dict_hook(hook)
        self.__dict__.setdefault("_public_hooks", {})[handle.id] = True
        return handle

    def _register_state_dict_hook(self, hook: Callable) -> _HookHandle:
        """PyTorch's older, private form of :meth:`register_state_dict_post_hook`: the hook may return
        a new state dict, which ``state_dict()`` returns (when registered on the root module)."""
        return self._add_hook(self.__dict__.setdefault("_state_dict_hooks", OrderedDict()), hook, False, False)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> _HookHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before anything is loaded: it may rename or convert entries of ``state_dict`` (a
        copy of the caller's) in place, and append to the three lists."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> _HookHandle:
        """PyTorch's private form: without ``with_module`` the hook is called without the module."""
        handle = self._add_hook(self.__dict__.setdefault("_load_state_dict_pre_hooks", OrderedDict()), hook,
                                False, False)
        if with_module:
            self.__dict__.setdefault("_public_hooks", {})[handle.id] = True
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable) -> _HookHandle:
        """``hook(module, incompatible_keys)`` after loading, children first: it may take keys out of
        ``incompatible_keys.missing_keys`` / ``.unexpected_keys`` in place before ``strict`` judges them
        (it must return None)."""
        return self._add_hook(self.__dict__.setdefault("_load_state_dict_post_hooks", OrderedDict()), hook,
                              False, False)

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy values from ``state_dict`` into this module's parameters and buffers (or, with
        ``assign=True``, put the given tensors in their places, as PyTorch: a parameter's keeps
        the old one's ``requires_grad``).

        Everything is checked before anything is copied, so an error never
        leaves the module half-loaded: with ``strict`` the keys must match
        exactly, and a shape mismatch is always an error.  Returns PyTorch's
        named pair ``(missing_keys, unexpected_keys)``.

        PyTorch's hooks run: ``register_load_state_dict_pre_hook`` ones first (they may rewrite a copy
        of ``state_dict``), ``register_load_state_dict_post_hook`` ones after loading, children first.
        A post-hook may forgive missing or unexpected keys, so where there are post-hooks the keys are
        judged after loading (as PyTorch judges them, leaving the module loaded).
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        if any(type(m)._load_from_state_dict is not Module._load_from_state_dict for _, m in self._walk()):
            return self._load_module_by_module(state_dict, strict, assign)
        state_dict, missing, unexpected, problems = self._run_load_pre_hooks(state_dict, assign)
        state_dict = self._with_older_format_defaults(state_dict, problems)
        own = self._own_state()
        missing += [k for k in own if k not in state_dict and k not in missing]
        unexpected += self._unexpected_in_pytorch_order([k for k in state_dict if k not in own and k not in unexpected])
        extras = {p + "_extra_state": m for p, m in self._walk() if m._loads_extra_state()}
        plan = self._load_plan({k: v for k, v in own.items() if k not in extras}, state_dict, problems)
        post_hooks = [m for _, m in self._walk() if m.__dict__.get("_load_state_dict_post_hooks")]
        # Everything is judged before anything is copied, unless post-hooks may still forgive keys
        self._raise_load_problems(([] if post_hooks else _key_problems(strict, missing, unexpected)) + problems)
        slots = {key: (m, name, t) for key, m, name, t in self._live_slots()}
        for k, v in plan:
            m, name, t = slots[k]
            m._load_one(name, t, v, assign, k)
        for key, m in extras.items():
            if key in state_dict:
                m.set_extra_state(state_dict[key])
        if post_hooks:
            self._run_load_post_hooks(_IncompatibleKeys(missing, unexpected))
            self._raise_load_problems(_key_problems(strict, missing, unexpected))
        return _IncompatibleKeys(missing, unexpected)

    def _unexpected_in_pytorch_order(self, keys: list[str]) -> list[str]:
        """``keys`` (in the state dict's order, none of them this tree's) as PyTorch's ``load`` reports
        them: each by the module where its path leaves the tree -- modules in ``state_dict`` order,
        a module's ``_extra_state`` before its other keys, then the state dict's order -- and without
        the keys under a child registered as None, which no module looks at."""
        if not keys:
            return keys
        rank = {prefix: i for i, (prefix, _) in enumerate(self._walk())}
        placed = []
        for position, key in enumerate(keys):
            prefix, module = "", self
            head, dot, rest = key.partition(".")
            while dot and head in module._modules:
                if module._modules[head] is None:
                    break  # (PyTorch's module here skips the key as a child's, and there is no child to read it)
                prefix, module = f"{prefix}{head}.", module._modules[head]
                head, dot, rest = rest.partition(".")
            else:
                placed.append((rank[prefix], key != prefix + "_extra_state", position, key))
        return [key for *_, key in sorted(placed)]

    def _load_one(self, name: str, target: Tensor, value: Tensor, assign: bool, key: str) -> None:
        """Load ``value`` (checked against ``target``, this module's ``name``, the state dict's ``key``):
        copied into it, or with ``assign`` put in its place (a parameter's keeps the old one's
        ``requires_grad``, as PyTorch)."""
        if not assign and target.is_meta and not value.is_meta:
            # A copy into a tensor without memory keeps nothing: PyTorch says so and points to assign=True
            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in "
                          "the current model, which is a no-op. (Did you mean to pass `assign=True` to assign items "
                          "in the state dictionary to their corresponding key in the module instead of copying "
                          "them in place?)", UserWarning, stacklevel=stacklevel_outside_the_engine())
        with no_grad():
            if future.get_swap_module_params_on_conversion():
                self._swap_loaded(target, value, assign)
                return
            if assign:
                if isinstance(target, Parameter):
                    value = (value.requires_grad_(target.requires_grad) if isinstance(value, Parameter)
                             else Parameter(value, requires_grad=target.requires_grad))
                setattr(self, name, value)
                return
            target.copy_(value if value.device is target.device else Tensor._from_data(value, device=target.device))

    @staticmethod
    def _swap_loaded(target: Tensor, value: Tensor, assign: bool) -> None:
        """PyTorch's ``swap_tensors`` path of loading (``mg.__future__``'s switch): what
        ``target.module_load(value, assign=assign)`` returns, a ``Parameter`` where ``target`` is one
        (with its ``requires_grad``), is swapped into ``target``, which keeps its identity."""
        new = target.module_load(value, assign=assign)
        if new is value or new is target:
            raise RuntimeError("module_load returned one of self or other, please .detach() the result if "
                               "returning one of the inputs in module_load")
        if isinstance(target, Parameter):
            new = (new.requires_grad_(target.requires_grad) if isinstance(new, Parameter)
                   else Parameter(new, requires_grad=target.requires_grad))
        swap_tensors(target, new)

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any],
                              strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        """PyTorch's per-module step of ``load_state_dict``: this module's load pre-hooks, then its own
        parameters, persistent buffers and extra state from the keys ``prefix + name`` (what does not
        fit goes into ``error_msgs``); with ``strict`` its missing keys, and the keys under ``prefix``
        that name nothing here, are noted.

        Override it as in PyTorch -- rename an old checkpoint's keys in ``state_dict`` and call
        ``super()._load_from_state_dict(...)``, or load in a way of your own: ``load_state_dict`` then
        runs PyTorch's algorithm, this step for each module, parents first (each module's values are
        copied as its step runs).  Without an override in the tree it checks everything first and
        copies nothing if anything is wrong."""
        _call_load_pre_hooks(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                             error_msgs)
        local = OrderedDict((n, t) for store in (self._parameters, self._buffers) for n, t in store.items()
                            if t is not None and not (store is self._buffers and n in self._non_persistent))
        plan = self._load_plan({prefix + n: t for n, t in local.items()}, state_dict, error_msgs)
        for key, value in plan:
            self._load_one(key[len(prefix):], local[key[len(prefix):]], value,
                           bool(local_metadata.get("assign_to_params_buffers", False)), key)
        if strict:
            missing_keys.extend(prefix + n for n in local if prefix + n not in state_dict)
        extra = prefix + "_extra_state"
        if self._loads_extra_state() and extra in state_dict:
            self.set_extra_state(state_dict[extra])
        elif strict and self._loads_extra_state():
            missing_keys.append(extra)
        elif strict and extra in state_dict:
            unexpected_keys.append(extra)
        for key in state_dict if strict else ():
            head, dot, _ = key[len(prefix):].partition(".")
            if key.startswith(prefix) and key != extra and head not in (self._modules if dot else local):
                unexpected_keys.append(key)

    def _load_module_by_module(self, state_dict: Any, strict: bool, assign: bool) -> _IncompatibleKeys:
        """PyTorch's ``load_state_dict``, for a tree where a module overrides ``_load_from_state_dict``:
        each module's step on a copy of the entries under its prefix (parents first, so a parent may
        rename its children's keys), strict always for the steps (the keys are judged at the end),
        each module's load post-hooks once its subtree is loaded."""
        metadata = getattr(state_dict, "_metadata", None)
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []

        def load(module: Module, local: dict[str, Any], prefix: str) -> None:
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = f"{prefix}{name}."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)
            module._run_own_load_post_hooks(_IncompatibleKeys(missing, unexpected))

        load(self, OrderedDict(self._with_older_format_defaults(state_dict, errors)), "")
        self._raise_load_problems(_key_problems(strict, missing, unexpected) + errors)
        return _IncompatibleKeys(missing, unexpected)

    def _with_older_format_defaults(self, state_dict: Any, errors: list[str]) -> Any:
        """``state_dict`` with the entries an older format of a module's state lacks filled in by the
        module (:meth:`_older_format_defaults`; PyTorch's classes do it in ``_load_from_state_dict``),
        and those it refuses taken out (:meth:`_older_format_refused`, whose messages go into
        ``errors``), a copy if any is. Its version is ``state_dict._metadata[module path]["version"]``
        when the dict carries PyTorch's metadata, else None (unknown: as old as can be)."""
        metadata = getattr(state_dict, "_metadata", None)
        filled = None
        for prefix, m in self._walk():
            version = metadata.get(prefix[:-1], {}).get("version") if metadata is not None else None
            refused, messages = m._older_format_refused(state_dict, prefix, version)
            errors += messages
            if refused:
                filled = OrderedDict(state_dict) if filled is None else filled
                for key in refused:
                    del filled[key]
            for key, value in m._older_format_defaults(prefix, version).items():
                if key not in state_dict:
                    filled = OrderedDict(state_dict) if filled is None else filled
                    filled[key] = value
        return state_dict if filled is None else filled

    def _older_format_defaults(self, prefix: str, version: int | None) -> dict[str, Any]:
        """The entries (keys with ``prefix``) to load when a state dict of format ``version`` lacks
        them; none here. A class whose state gained an entry overrides it."""
        return {}

    def _older_format_refused(self, state_dict: Any, prefix: str,
                              version: int | None) -> tuple[list[str], list[str]]:
        """``(keys, messages)``: the entries of ``state_dict`` (keys with ``prefix``) of format
        ``version`` that this module's state no longer has and refuses, with why (load errors even
        when not strict, as PyTorch's); none here. A class whose state lost an entry overrides it."""
        return [], []

    def _run_load_pre_hooks(self, state_dict: Any, assign: bool) -> tuple[Any, list[str], list[str], list[str]]:
        """Every module's load pre-hooks, parents first, as PyTorch's ``load`` calls them: each on a copy
        of the entries under its prefix, as its parent's hooks left them, with its ``local_metadata``
        (``state_dict._metadata``'s entry for its path); ``strict`` True whatever the caller's (its steps
        collect every key; the caller's ``strict`` judges them at the end).  What each module reads --
        the entries under its prefix, none of a child's -- is what it and its parents' hooks left; the
        result keeps ``_metadata`` (a module's format version)."""
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        if not any(m.__dict__.get("_load_state_dict_pre_hooks") for _, m in self._walk()):
            return state_dict, missing, unexpected, errors
        metadata = getattr(state_dict, "_metadata", None)
        loaded: OrderedDict[str, Any] = OrderedDict()

        def visit(module: Module, local: dict[str, Any], prefix: str) -> None:
            if module.__dict__.get("_load_state_dict_pre_hooks"):
                local_metadata = metadata.get(prefix[:-1], {}) if metadata is not None else {}
                if assign:
                    local_metadata = {**local_metadata, "assign_to_params_buffers": True}
                _call_load_pre_hooks(module, local, prefix, local_metadata, True, missing, unexpected, errors)
            children = [(f"{prefix}{name}.", child) for name, child in module._modules.items() if child is not None]
            for k, v in local.items():  # (a key a hook added outside its prefix is read by nobody, as in PyTorch)
                if k.startswith(prefix) and not any(k.startswith(p) for p, _ in children):
                    loaded[k] = v
            for child_prefix, child in children:
                visit(child, OrderedDict((k, v) for k, v in local.items() if k.startswith(child_prefix)), child_prefix)

        visit(self, OrderedDict(state_dict), "")
        if metadata is not None:
            loaded._metadata = metadata  # type: ignore[attr-defined]
        return loaded, missing, unexpected, errors

    def _run_load_post_hooks(self, incompatible: _IncompatibleKeys) -> None:
        """Every module's load post-hooks, children before their parent, as PyTorch calls them."""
        for m in self._modules.values():
            if m is not None:
                m._run_load_post_hooks(incompatible)
        self._run_own_load_post_hooks(incompatible)

    def _run_own_load_post_hooks(self, incompatible: _IncompatibleKeys) -> None:
        for hook in list(self.__dict__.get("_load_state_dict_post_hooks", {}).values()):
            if hook(self, incompatible) is not None:
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                     "expected to return new values, if incompatible_keys need to be "
                                     "modified, it should be done inplace.")

    def _raise_load_problems(self, problems: list[str]) -> None:
        if problems:
            raise RuntimeError(  # PyTorch's layout: the key problems first, one per line after a tab
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(problems)
            )

    def _saves_extra_state(self) -> bool:
        """``state_dict()`` holds an ``_extra_state`` entry for this module (it overrides the getter)."""
        return type(self).get_extra_state is not Module.get_extra_state

    def _loads_extra_state(self) -> bool:
        """``load_state_dict`` wants and takes back an ``_extra_state`` entry (it overrides the setter)."""
        return type(self).set_extra_state is not Module.set_extra_state

    def get_extra_state(self) -> Any:
        """State beyond parameters and buffers for ``state_dict()`` (under ``"<prefix>_extra_state"``),
        as PyTorch's: override it together with :meth:`set_extra_state`; a module that does not has none."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state: Any) -> None:
        """Take back what :meth:`get_extra_state` returned, in ``load_state_dict``."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    @staticmethod
    def _load_plan(own: dict[str, Tensor], state_dict: dict[str, Any], problems: list[str]) -> list:
        """``(key, Tensor)`` for each value to load, each checked against its target; what is wrong
        goes into ``problems`` instead."""
        plan = []
        for k, target in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            if _uninitialized(target) and _uninitialized(v):
                continue  # (a lazy layer's state saved before its first input: nothing to copy, as PyTorch's)
            if not hasattr(v, "shape") and not isinstance(v, (list, tuple, int, float)):
                problems.append(f"{k}: expected a Tensor or an array of shape {target.shape}, got a "
                                f"{type(v).__name__}")
                continue
            if not isinstance(v, Tensor):  # nested lists of numbers are arrays written out
                try:
                    v = Tensor._from_data(v, dtype=target.dtype)
                except (TypeError, ValueError) as exc:
                    problems.append(f"{k}: cannot convert the {type(v).__name__} to {target.dtype}: {exc}")
                    continue
            if target.ndim == 0 and tuple(v.shape) == (1,):
                v = v[0]  # PyTorch's: a one-element 1-D entry loads into a 0-d tensor (checkpoints of PyTorch 0.3)
            if tuple(v.shape) != target.shape:
                problems.append(f"size mismatch for {k}: copying a param with shape {tuple(v.shape)} from checkpoint, "
                                f"the shape in current model is {target.shape}.")
                continue
            plan.append((k, v))
        return plan

    def _live_slots(self) -> Iterator[tuple[str, Module, str, Tensor]]:
        """``(state-dict key, owning module, attribute name, tensor)`` for every parameter and buffer
        (non-persistent ones too), along every path as :meth:`state_dict` names them."""
        for p, m in self._walk():
            for store in (m._parameters, m._buffers):
                for name, t in store.items():
                    if t is not None:
                        yield p + name, m, name, t

    def _live_tensors(self) -> Iterator[tuple[str, Tensor]]:
        for key, _, _, t in self._live_slots():
            yield key, t

    # ------------------------------------------------------------------ print
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines.extend(extra.split("\n"))
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {sub}")
        body = ""
        if lines:
            # one line inline, as PyTorch; several (an extra_repr of many lines, or children) indented below
            body = "\n  " + "\n  ".join(lines) + "\n" if self._modules or len(lines) > 1 else lines[0]
        return f"{type(self).__name__}({body})"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # ----------------------------------------------------------- copy / pickle
    # PyTorch's Module defines both, so a subclass's ``__setstate__`` that fills in an attribute an
    # older version lacked and then calls ``super().__setstate__(state)`` -- the usual idiom, run by
    # copy.deepcopy and pickle -- finds them (``object`` has no ``__setstate__``, and no
    # ``__getstate__`` before Python 3.11).  They do what Python's default protocol does.
    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
