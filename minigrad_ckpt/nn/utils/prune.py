"""PyTorch's ``torch.nn.utils.prune``: masks on a module's parameters, as the pruning tutorial uses them.

Pruning ``name`` of a module moves the parameter to ``<name>_orig``, registers a buffer
``<name>_mask`` (ones where the weight is kept, zeros where pruned), and sets the plain attribute
``<name>`` to ``<name>_orig * <name>_mask``, recomputed before every forward by a forward pre-hook
(the pruning method itself) -- so the optimizer trains ``<name>_orig`` and the gradient of a pruned
entry is 0.  Pruning again combines the masks (a :class:`PruningContainer`: the new method sees only
what is still kept); :func:`remove` makes the pruning permanent (``<name>`` a parameter again, the
masked values).  The methods: :func:`identity`, :func:`random_unstructured`, :func:`l1_unstructured`,
:func:`random_structured`, :func:`ln_structured`, :func:`custom_from_mask`, :func:`global_unstructured`,
and :class:`BasePruningMethod` to write one's own (``PRUNING_TYPE`` and ``compute_mask``).
Random methods draw from the engine's generator (PyTorch's draws differ).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import functional as mf
from ...creation import ones_like, rand, rand_like, zeros_like
from ...tensor import Tensor
from ..module import Module

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask(t, default_mask)`` says what to keep; applied by ``apply``,
    it is also the forward pre-hook that recomputes ``module.<name>`` from ``<name>_orig`` and the mask."""

    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask of ``t`` (its shape), starting from ``default_mask`` (what earlier pruning kept)."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_orig * <name>_mask`` of ``module`` (the mask in the parameter's dtype)."""
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Any = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, ranking by ``importance_scores``
        (default: the current, already masked, values), combined with any earlier pruning of it."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # put the parameter back as it was
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None) -> Tensor:
        """``t`` with this method's mask applied (no module involved)."""
        scores = t if importance_scores is None else importance_scores
        return t * self.compute_mask(scores, default_mask=ones_like(t) if default_mask is None else default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``module.<name>`` becomes the parameter ``<name>_orig`` holding
        the masked values; ``<name>_orig`` and ``<name>_mask`` go."""
        name = self._tensor_name
        weight = self.apply_mask(module)
        if name in module.__dict__:
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = weight.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _composite_method(cls: type, module: Module, name: str, *args: Any, **kwargs: Any) -> BasePruningMethod:
    """``cls(*args, **kwargs)`` for ``module.<name>``, joined into one container with the method that
    pruned it before (whose hook is taken off: the container's replaces it)."""
    earlier = [(k, hook) for k, hook in module._forward_pre_hooks.items()
               if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(earlier) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             f"Use a PruningContainer.")
    for k, _ in earlier:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not earlier:
        return method
    old = earlier[0][1]
    if not isinstance(old, PruningContainer):
        old = PruningContainer(old)
    old.add_pruning_method(method)
    return old


class PruningContainer(BasePruningMethod):
    """Pruning methods applied one after the other to one tensor: each new one sees only the entries
    (``unstructured``) or channels (``structured``) the earlier ones kept."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:  # several, or none (global_unstructured names the tensor itself)
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: Any) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on the part of ``t`` the mask so far keeps, written into it."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        where = _still_kept(method, t, default_mask)
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = partial.to(dtype=new_mask.dtype)
        return new_mask


def _still_kept(method: BasePruningMethod, t: Tensor, mask: Tensor) -> Any:
    """The index of what ``method`` prunes among: the kept entries (unstructured), the kept channels
    along its ``dim`` (structured), or everything (global)."""
    kind = getattr(method, "PRUNING_TYPE", None)
    if kind == "unstructured":
        return mask == 1
    if kind == "structured":
        if not hasattr(method, "dim"):
            raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have the attribute `dim` "
                                 "defined.")
        dim = method.dim + t.ndim if method.dim < 0 else method.dim
        if dim < 0:
            raise IndexError(f"Index is out of bounds for tensor of size {t.shape}")
        where = [slice(None)] * t.ndim
        where[dim] = mask.sum(dim=[d for d in range(t.ndim) if d != dim]) != 0
        return tuple(where)
    if kind == "global":
        return (slice(None),) * t.ndim
    raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")


def _check_amount(amount: Any) -> None:
    """An amount to prune: a fraction in [0, 1] or a count >= 0 (PyTorch's checks and messages)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount: Any, size: int) -> int:
    """How many of ``size`` entries or channels ``amount`` prunes (a fraction is rounded half to even)."""
    count = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if count > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
    return int(count)


def _check_structured(t: Tensor, dim: int) -> None:
    if t.ndim <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {t.shape} with {t.ndim} dims")
    if dim >= t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _zero_entries(default_mask: Tensor, indices: Tensor) -> Tensor:
    """A copy of ``default_mask`` with the flat ``indices`` set to 0."""
    mask = default_mask.clone()
    if indices.numel():
        mask.view(-1)[indices] = 0
    return mask


def _keep_channels(t: Tensor, dim: int, channels: Any, default_mask: Tensor) -> Tensor:
    """Ones on the ``channels`` (indices or a bool mask) along ``dim``, zeros elsewhere, times ``default_mask``."""
    mask = zeros_like(t)
    where = [slice(None)] * t.ndim
    where[dim] = channels
    mask[tuple(where)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask of ones (a way to give a tensor the pruned form)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


class _EntriesByScore(BasePruningMethod):
    """Prunes ``amount`` entries, those :meth:`_to_prune` picks."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _count_to_prune(self.amount, t.numel())
        if count == 0:
            return default_mask.clone()
        return _zero_entries(default_mask, self._to_prune(t, count))

    def _to_prune(self, t: Tensor, count: int) -> Tensor:
        raise NotImplementedError


class RandomUnstructured(_EntriesByScore):
    """Prunes ``amount`` entries chosen at random."""

    def _to_prune(self, t: Tensor, count: int) -> Tensor:
        return rand_like(t).view(-1).topk(count).indices

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(_EntriesByScore):
    """Prunes the ``amount`` entries of least absolute value."""

    def _to_prune(self, t: Tensor, count: int) -> Tensor:
        return t.abs().view(-1).topk(count, largest=False).indices

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,  # type: ignore[override]
              importance_scores: Any = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _ChannelsByScore(BasePruningMethod):
    """Prunes ``amount`` channels along ``dim``: all but those :meth:`_kept` picks."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        count = _count_to_prune(self.amount, size)
        if count == 0:
            self._check_scores(t)
            return default_mask
        return _keep_channels(t, self.dim, self._kept(t, size, count), default_mask)

    def _kept(self, t: Tensor, size: int, count: int) -> Tensor:
        raise NotImplementedError

    def _check_scores(self, t: Tensor) -> None:
        """What pruning nothing still checks (nothing, unless a method scores channels regardless)."""


class RandomStructured(_ChannelsByScore):
    """Prunes ``amount`` channels along ``dim``, chosen at random."""

    def _kept(self, t: Tensor, size: int, count: int) -> Tensor:
        prob = rand(size)
        return prob > prob.kthvalue(count).values

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, dim: int = -1) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_ChannelsByScore):
    """Prunes the ``amount`` channels along ``dim`` of least ``n``-norm."""

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        super().__init__(amount, dim)
        self.n = n

    def _kept(self, t: Tensor, size: int, count: int) -> Tensor:
        return self._channel_norms(t).topk(size - count, largest=True).indices

    def _channel_norms(self, t: Tensor) -> Tensor:
        dim = self.dim % t.ndim
        return t.norm(p=self.n, dim=[d for d in range(t.ndim) if d != dim])

    def _check_scores(self, t: Tensor) -> None:
        # PyTorch takes the norms before it reads the amount: an order torch.norm refuses over these
        # dims ('fro' over three, 'nuc') is an error even when no channel is pruned
        self._channel_norms(t)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, n: Any, dim: int,  # type: ignore[override]
              importance_scores: Any = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"the mask's shape {self.mask.shape} is not the tensor's {default_mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: Any, importance_scores: Any = None) -> Module:
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: Any, n: Any, dim: int, importance_scores: Any = None) -> Module:
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters: Any, pruning_method: type, importance_scores: Any = None, **kwargs: Any) -> None:
    """Prune the ``(module, name)`` pairs together, as one vector, with an unstructured ``pruning_method``
    class (``prune.L1Unstructured, amount=20``): each gets the part of the joint mask that is its own."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    scores = {} if importance_scores is None else importance_scores
    if not isinstance(scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    joint_scores = _joined([scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default_mask = _joined([getattr(m, n + "_mask", ones_like(getattr(m, n))) for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(joint_scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=final_mask[start:start + param.numel()].view_as(param))
        start += param.numel()


def _joined(tensors: list[Tensor]) -> Tensor:
    """The tensors flattened into one vector (``parameters_to_vector``, which imports this module)."""
    return mf.concatenate([t.reshape(-1) for t in tensors])


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent (see :meth:`BasePruningMethod.remove`)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or a submodule carries a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())
