"""``functional_call``: run a module with other tensors in place of its parameters and buffers.

``torch.func.functional_call``'s meaning: the way to take gradients with respect to a model's
weights with the function transforms (``mg.func.grad(loss_of_params)(params)``), or to run a model
with weights of your own (meta-learning) without touching the model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

from .. import functional as _F
from ..tensor import Tensor
from .vmap_writes import shared_by_the_examples

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]

# The modules a functional_call is running now (innermost last).  DistributedDataParallel asks
# (stands_in): its parameters are the caller's tensors for the call, not the ones it wrapped, so it
# runs that forward without averaging -- as PyTorch's, whose reducer hooks sit on the wrapped ones.
_running: list[Any] = []


def stands_in(module: Any) -> bool:
    """Whether a :func:`functional_call` of ``module``, or of a model holding it, is running: its
    tensors may be the caller's now.  (The walk runs only inside a functional_call.)"""
    return any(m is module or any(c is module for c in m.modules()) for m in _running)


def _merged(dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One dict of the names and tensors given, checked as PyTorch checks them: a number or a list
    standing in for a parameter would be taken by some layers (broadcast, or made a tensor) and give
    an answer where PyTorch's functional_call refuses it."""
    if isinstance(dicts, Mapping):
        merged = dict(dicts)
    elif isinstance(dicts, (tuple, list)):
        if not all(isinstance(d, Mapping) for d in dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        merged = {}
        for d in dicts:
            twice = [k for k in d if k in merged]
            if twice:
                raise ValueError(f"{twice} appeared in multiple dictionaries; behavior of functional call is "
                                 f"ambiguous")
            merged.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(dicts)}")
    for value in merged.values():
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"{value} is not an instance of minigrad_ckpt.Tensor")
    return merged


def functional_call(module: Any, parameter_and_buffer_dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (dotted names,
    as ``named_parameters()``; one dict or several) standing in for its parameters and buffers, as
    PyTorch's; the module is as it was afterwards, even if forward raises.

    Names not given keep the module's own tensors (``strict=True``: every parameter and buffer must
    be given, and no other name).  With ``tie_weights`` a tensor given for one of tied parameters
    (``decoder.weight = encoder.weight``) stands in for all of them (two different tensors for one
    tied group are a ValueError).  A name the module registered as None (``Linear(bias=False)``'s
    ``bias``) takes the tensor given; any other name is set as an attribute for the call, as
    PyTorch's, but a tensor for an attribute that is not one (a number) is PyTorch's TypeError.  ``args``
    that is not a tuple is the one positional argument.  A dict given (not several) gets what forward
    left at its names, as PyTorch's: ``self.count = self.count + 1`` reaches it (not a dict ``vmap``'s
    function closes over: each example must find the same).
    """
    given = _merged(parameter_and_buffer_dicts)
    if tie_weights or strict:  # (walked only then: without them a module that holds itself runs, as PyTorch's)
        slots = list(module._live_slots())  # (key, owner, name, tensor), every path
        if tie_weights:
            given = _untied(slots, given)
        if strict:
            _check_keys(module, {key for key, *_ in slots}, given)
    saved, swapped = [], set()
    _running.append(module)
    try:
        for key, value in given.items():
            saved.append(_swap(module, key, value))
            swapped.add(key)
        args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        if isinstance(parameter_and_buffer_dicts, MutableMapping):
            _write_back(module, parameter_and_buffer_dicts, swapped)
        for restore in reversed(saved):
            restore()
        _running.pop()


def _write_back(module: Any, given: MutableMapping[str, Any], swapped: set[str]) -> None:
    """Give the caller's dict what forward left at its names, as PyTorch's: a forward that rebinds
    a buffer (``self.count = self.count + 1``) is otherwise lost with the module's restored state."""
    for key in [key for key in given if key in swapped]:  # (a failed swap stopped the loop: not the rest)
        if isinstance(given[key], Tensor) and shared_by_the_examples(given[key]):
            continue  # (a dict vmap's function closes over: each example must find what the first did)
        path, _, name = key.rpartition(".")
        now = _current(module.get_submodule(path), name)
        if now is not _ABSENT:
            given[key] = now


def _untied(slots: list, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with every name tied to a given one (the same tensor under several names) added."""
    groups: dict[int, list[str]] = {}
    for key, _, _, t in slots:
        groups.setdefault(id(t), []).append(key)
    untied = dict(given)
    for names in groups.values():
        named = [k for k in names if k in given]
        if len(names) < 2 or not named:
            continue
        if len({id(given[k]) for k in named}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             f"Consider using tie_weights=False")
        untied.update({k: given[named[0]] for k in names})
    return untied


def _check_keys(module: Any, valid: set[str], given: dict[str, Any]) -> None:
    missing, unexpected = sorted(valid - set(given)), sorted(set(given) - valid)
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(type(module).__name__,
                                                                              "\n\t".join(errors)))


_ABSENT = object()


def _swap(module: Any, key: str, value: Any) -> Callable[[], None]:
    """Put ``value`` at the dotted ``key`` (into the registry itself: a plain tensor may stand where
    a Parameter was); returns what puts the old one back."""
    path, _, name = key.rpartition(".")
    if not key:  # (torch 2.13's error: setattr(module, "", t) would take it and change nothing)
        raise KeyError('tensor name can\'t be empty string ""')
    owner = module.get_submodule(path)
    for store in (owner._parameters, owner._buffers):
        if name in store:
            old = store[name]
            store[name] = value
            return lambda: store.__setitem__(name, old)
    old = getattr(owner, name, _ABSENT)
    if old is not _ABSENT and old is not None and not isinstance(old, Tensor):
        # (a number, a module, a method: PyTorch's TypeError, where setting it would change the module's meaning)
        raise TypeError(f"attribute `{name}`: {old} is not an instance of minigrad_ckpt.Tensor")
    setattr(owner, name, value)
    return lambda: delattr(owner, name) if old is _ABSENT else setattr(owner, name, old)


def _current(owner: Any, name: str) -> Any:
    for store in (owner._parameters, owner._buffers):
        if name in store:
            return store[name]
    return getattr(owner, name, _ABSENT)


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(params, buffers)``: the parameters and buffers of ``M`` models of one class, each stacked
    along a new first dimension of size ``M`` under its dotted name -- PyTorch's preparation of an
    ensemble for :func:`~minigrad_ckpt.func.vmap`::

        params, buffers = stack_module_state(models)
        out = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
            params, buffers, x)                           # shape (M, ...)

    The stacked parameters are new leaves that require grad (an optimizer can take them), unrelated
    to the models' own; buffers are stacked as they are.
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({bool(m.training) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: list[Any], name: str) -> Any:
    wants = {bool(t.requires_grad) for t in tensors}
    if len(wants) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = _F.stack(tensors)
    return result.detach().requires_grad_() if wants == {True} else result


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """PyTorch's: every batch norm in ``root`` (itself included) stops tracking running statistics --
    ``running_mean``, ``running_var`` and ``num_batches_tracked`` become None, ``track_running_stats``
    False -- so it normalises by the batch's statistics in evaluation too, and writes no buffer under
    :func:`~minigrad_ckpt.func.vmap`.  Returns ``root``, changed in place."""
    for m in root.modules():
        is_batch_norm = any(c.__name__ == "_BatchNorm" for c in type(m).__mro__)  # (nn sits above func)
        if is_batch_norm and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
