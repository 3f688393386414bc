"""``functional_call``: run a module with other tensors in place of its parameters and buffers.

``torch.func.functional_call``'s meaning: the way to take gradients with respect to a model's
weights with the function transforms (``mg.func.grad(loss_of_params)(params)``), or to run a model
with weights of your own (meta-learning) without touching the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import functional as _F

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


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
