"""``Module`` and ``Parameter``: PyTorch's everyday surface, in plain Python.

A Module registers what you assign to it: a :class:`Parameter` becomes a
parameter, another Module a submodule, and :meth:`Module.register_buffer`
adds state that is saved but not trained (BatchNorm's running statistics).
``state_dict()`` and ``load_state_dict()`` walk that tree with dotted names.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from ..backend import as_dtype, device_or_dtype
from ..creation import zeros
from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["Module", "Parameter"]


class Parameter(Tensor):
    """A Tensor that is a module's trainable weight (``requires_grad=True`` by default).

    ``Parameter(t)`` takes over ``t``'s array without copying it.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = Tensor([], dtype="float32")
        if isinstance(data, Tensor):
            super().__init__(())  # a fresh leaf, then hold ``data``'s array: no copy
            self.set_(data.detach())
        else:
            super().__init__(data)
        if requires_grad:
            self.requires_grad = True

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


def _empty(*shape: int, dtype: Any = None, device: Any = None) -> Parameter:
    """A zero Parameter of ``shape``: a layer's ``reset_parameters`` fills it."""
    return Parameter(zeros(*shape, dtype=dtype, device=device))


class _HookHandle:
    def __init__(self, hooks: dict, key: int) -> None:
        self._hooks, self._key = hooks, key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


class Module:
    """Base class of every layer and model.

    Subclasses set parameters and submodules as attributes in ``__init__``
    and define ``forward``; calling the module runs its forward hooks and
    ``forward``.
    """

    _hook_counter = 0

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "training", True)

    # ------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        """PyTorch's registration rules: a Parameter, Module or buffer assigned to a name keeps that name's
        place in ``state_dict()`` and ``parameters()`` (tying ``decoder.weight = encoder.weight`` does not
        reorder an optimizer's parameters), and a name that holds a parameter, module or buffer takes only
        its own kind (or None): anything else is a TypeError, as in PyTorch, not a plain attribute."""
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() is called "
                f"(call super().__init__() first in {type(self).__name__}.__init__)"
            )
        params, modules, buffers = self._parameters, self._modules, self._buffers
        if isinstance(value, Parameter):
            self._forget(name, modules, buffers)
            params[name] = value
        elif name in params:
            self._check_kind(name, value, "parameter", "nn.Parameter")
            params[name] = None
        elif isinstance(value, Module):
            self._forget(name, params, buffers)
            modules[name] = value
        elif name in modules:
            self._check_kind(name, value, "child module", "nn.Module")
            modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                self._check_kind(name, value, "buffer", "Tensor")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

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

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: {name!r} must be a Parameter or None")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add state that is part of ``state_dict`` (if persistent) but not trained."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor or None")
        if "." in name or not name:
            raise KeyError(f"buffer name {name!r} must be non-empty and contain no '.'")
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)

    def register_module(self, name: str, module: Module | None) -> None:
        self._modules[name] = module

    add_module = register_module

    # ----------------------------------------------------------------- calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks):  # the usual case: no hooks
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            r = hook(self, args, out)
            if r is not None:
                out = r
        return out

    def register_forward_hook(self, hook: Callable) -> _HookHandle:
        """``hook(module, inputs, output)`` after every forward; may return a new output."""
        Module._hook_counter += 1
        self._forward_hooks[Module._hook_counter] = hook
        return _HookHandle(self._forward_hooks, Module._hook_counter)

    def register_forward_pre_hook(self, hook: Callable) -> _HookHandle:
        """``hook(module, inputs)`` before every forward; may return new inputs."""
        Module._hook_counter += 1
        self._forward_pre_hooks[Module._hook_counter] = hook
        return _HookHandle(self._forward_pre_hooks, Module._hook_counter)

    # --------------------------------------------------------------- traversal
    def named_modules(self, memo: set | None = None, prefix: str = "") -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named(self, store: str, prefix: str, recurse: bool) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, t in getattr(m, store).items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{mprefix}.{name}" if mprefix else name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a parameter shared by two modules appears once."""
        yield from self._named("_parameters", prefix, recurse)  # type: ignore[misc]

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named("_buffers", prefix, recurse)

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
        """Set training mode (dropout active, batch norm uses batch statistics)."""
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
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
                with no_grad():
                    p.grad.zero_()

    # ------------------------------------------------------------ conversion
    def to(self, target: Any = None, dtype: Any = None) -> Module:
        """Move parameters and buffers to a device and/or cast floating ones to a dtype, in place.

        Parameters keep their identity (an optimizer built before ``to`` still
        holds them).  Integer buffers (``num_batches_tracked``) are never cast.
        A complex dtype casts the complex tensors too (``to(mg.complex128)``, as
        PyTorch); a real one leaves them complex (PyTorch would drop their
        imaginary parts).
        """
        dev, dt = None, None
        if target is not None:
            dev, dt = device_or_dtype(target)
        if dtype is not None:
            dt = as_dtype(dtype)

        def cast(kind: str) -> bool:
            return dt is not None and (kind == "f" or kind == dt.kind == "c")

        def convert(t: Tensor) -> None:
            new = t
            if cast(t.dtype.kind) and t.dtype != dt:
                new = Tensor(new, dtype=dt)
            if dev is not None and new.device is not dev:
                new = Tensor(new, device=dev)
            if new is not t:
                t.set_(new)
                if t.grad is not None:
                    g = t.grad
                    if cast(g.dtype.kind):
                        g = Tensor(g, dtype=dt)
                    if dev is not None:
                        g = Tensor(g, device=dev)
                    t.grad = g

        with no_grad():
            for m in self.modules():
                for store in (m._parameters, m._buffers):
                    for t in store.values():
                        if t is not None:
                            convert(t)
        return self

    def float(self) -> Module:
        return self.to(dtype="float32")

    def double(self) -> Module:
        return self.to(dtype="float64")

    def half(self) -> Module:
        return self.to(dtype="float16")

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self, index: int = 0) -> Module:
        return self.to(f"cuda:{index}")

    # ------------------------------------------------------------- state dict
    def state_dict(self, prefix: str = "") -> OrderedDict[str, Tensor]:
        """Every parameter and persistent buffer by dotted name (detached, sharing memory)."""
        out: OrderedDict[str, Tensor] = OrderedDict()
        for mprefix, m in self.named_modules(prefix=prefix):
            p = f"{mprefix}." if mprefix else ""
            for name, t in m._parameters.items():
                if t is not None:
                    out[p + name] = t.detach()
            for name, t in m._buffers.items():
                if t is not None and name not in m._non_persistent:
                    out[p + name] = t.detach()
        return out

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> tuple[list[str], list[str]]:
        """Copy values from ``state_dict`` into this module's parameters and buffers.

        Everything is checked before anything is copied, so an error never
        leaves the module half-loaded: with ``strict`` the keys must match
        exactly, and a shape mismatch is always an error.  Returns
        ``(missing_keys, unexpected_keys)``.
        """
        own = self.state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        problems = []
        if strict and missing:
            problems.append("missing keys: " + ", ".join(missing))
        if strict and unexpected:
            problems.append("unexpected keys: " + ", ".join(unexpected))
        plan = []
        for k, target in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            if not hasattr(v, "shape"):
                if not isinstance(v, (list, tuple, int, float)):
                    problems.append(f"{k}: expected a Tensor or an array of shape {target.shape}, got a "
                                    f"{type(v).__name__}")
                    continue
                try:  # nested lists of numbers are arrays written out
                    v = Tensor(v, dtype=target.dtype)
                except (TypeError, ValueError) as exc:
                    problems.append(f"{k}: cannot convert the {type(v).__name__} to {target.dtype}: {exc}")
                    continue
            shape = tuple(v.shape)
            if shape != target.shape:
                problems.append(f"size mismatch for {k}: expected {target.shape}, got {shape}")
                continue
            if not isinstance(v, Tensor):  # convert now, so a bad value fails before anything is copied
                try:
                    v = Tensor(v, dtype=target.dtype)
                except (TypeError, ValueError) as exc:
                    problems.append(f"cannot convert {k} to {target.dtype}: {exc}")
                    continue
            plan.append((k, v))
        if problems:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n  " + "\n  ".join(problems)
            )
        live = dict(self._live_tensors())
        with no_grad():
            for k, v in plan:
                t = live[k]
                src = v if isinstance(v, Tensor) else Tensor(v, dtype=t.dtype)
                if src.device is not t.device:
                    src = Tensor(src, device=t.device)
                t.copy_(src)
        return missing, unexpected

    def _live_tensors(self) -> Iterator[tuple[str, Tensor]]:
        for mprefix, m in self.named_modules():
            p = f"{mprefix}." if mprefix else ""
            for store in (m._parameters, m._buffers):
                for name, t in store.items():
                    if t is not None:
                        yield p + name, t

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
