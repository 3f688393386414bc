"""``functional_call``: run a module with other tensors in place of its parameters and buffers.

``torch.func.functional_call``'s meaning: the way to take gradients with respect to a model's
weights with the function transforms (``mg.func.grad(loss_of_params)(params)``), or to run a model
with weights of your own (meta-learning) without touching the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["functional_call"]


def _merged(dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    if isinstance(dicts, Mapping):
        return dict(dicts)
    merged: dict[str, Any] = {}
    for d in dicts:
        twice = [k for k in d if k in merged]
        if twice:
            raise ValueError(f"{twice} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged.update(d)
    return merged


def functional_call(module: Any, parameter_and_buffer_dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (dotted names,
    as ``named_parameters()``; one dict or several) standing in for its parameters and buffers, as
    PyTorch's; the module is as it was afterwards, even if forward raises.

    Names not given keep the module's own tensors (``strict=True``: every parameter and buffer must
    be given, and no other name).  With ``tie_weights`` a tensor given for one of tied parameters
    (``decoder.weight = encoder.weight``) stands in for all of them.  Names the module does not
    have are ignored unless ``strict``.  ``args`` that is not a tuple is the one positional argument.
    """
    given = _merged(parameter_and_buffer_dicts)
    slots = list(module._live_slots())  # (key, owner, name, tensor), every path
    if strict:
        keys = {key for key, *_ in slots}
        missing = [k for k in keys if k not in given]
        unexpected = [k for k in given if k not in keys]
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: missing keys "
                               f"{sorted(missing)}, unexpected keys {sorted(unexpected)}")
    by_tensor = {id(t): given[key] for key, _, _, t in slots if key in given} if tie_weights else {}
    saved = []
    try:
        for key, owner, name, t in slots:
            new = given[key] if key in given else by_tensor.get(id(t))
            if new is None:
                continue
            store = owner._parameters if name in owner._parameters else owner._buffers
            saved.append((store, name, store[name]))
            store[name] = new  # into the registry itself: a plain tensor may stand where a Parameter was
        args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for store, name, old in reversed(saved):
            store[name] = old
