"""A module's full backward hooks: ``hook(module, grad_input, grad_output)`` once its gradients are known.

PyTorch's ``register_full_backward_hook`` meaning, made of tensor hooks: the module's tensor inputs
and outputs are passed through a view (a node of their own on the tape), the outputs' hooks collect
``grad_output`` (their nodes come first in the backward), and when the last input's gradient
arrives the module's hooks get ``grad_input`` -- one entry per positional argument, None where it
is not a tensor that requires grad.  A module none of whose inputs requires grad gets
``grad_input`` of Nones once ``grad_output`` is complete, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["call_with_backward_hooks"]


def _needs_grad(x: Any) -> bool:
    return isinstance(x, Tensor) and x.requires_grad


def call_with_backward_hooks(module: Any, hooks: list[Callable], args: tuple, run: Callable[[tuple], Any],
                             pre_hooks: list[Callable] | None = None) -> Any:
    """``run(args)`` with ``hooks`` called as full backward hooks of ``module``, and ``pre_hooks`` as its
    full backward pre-hooks: ``hook(module, grad_output)`` before the gradient enters the module, which
    may return a new ``grad_output`` (here: for a module with one output that requires grad)."""
    pre_hooks = pre_hooks or []
    if not is_grad_enabled():
        return run(args)
    watched = [i for i, a in enumerate(args) if _needs_grad(a)]
    args = tuple(a.view_as(a) if i in watched else a for i, a in enumerate(args))
    out = run(args)
    outs = out if isinstance(out, tuple) else (out,)
    out_watched = [k for k, o in enumerate(outs) if _needs_grad(o)]
    if not out_watched:
        return out
    if pre_hooks and len(out_watched) > 1:
        raise RuntimeError(f"{type(module).__name__}: full backward pre-hooks are supported here for a module "
                           f"with one output that requires grad; this call has {len(out_watched)}")
    outs = tuple(o.view_as(o) if k in out_watched else o for k, o in enumerate(outs))
    state: dict[str, Any] = {"grad_output": [None] * len(outs), "outputs_left": len(out_watched),
                             "grad_input": [None] * len(args), "inputs_left": len(watched)}

    def fire() -> tuple | None:
        result = None
        for hook in hooks:
            r = hook(module, tuple(state["grad_input"]), tuple(state["grad_output"]))
            if r is not None:
                state["grad_input"] = list(r)
                result = r
        return result

    def on_output(k: int) -> Callable[[Tensor], Tensor | None]:
        def hook(g: Tensor) -> Tensor | None:
            replaced = None
            for pre in pre_hooks:  # one watched output: its gradient is all of grad_output
                grad_output = tuple(g if j == k else None for j in range(len(outs)))
                r = pre(module, grad_output)
                if r is not None:
                    g = replaced = r[k]
            state["grad_output"][k] = g
            state["outputs_left"] -= 1
            if state["outputs_left"] == 0 and not watched and hooks:
                fire()  # no input asks for a gradient: PyTorch calls the hooks with grad_input of Nones
            return replaced
        return hook

    def on_input(i: int) -> Callable[[Tensor], Tensor | None]:
        def hook(g: Tensor) -> Tensor | None:
            state["grad_input"][i] = g
            state["inputs_left"] -= 1
            if state["inputs_left"] > 0:
                return None
            replaced = fire()
            if replaced is not None and len(watched) > 1:
                raise RuntimeError(f"{type(module).__name__}: a full backward hook that returns new grad_input "
                                   f"is supported for one tensor input here; this call has {len(watched)}")
            return None if replaced is None else replaced[i]
        return hook

    for k in out_watched:
        outs[k].register_hook(on_output(k))
    for i in watched if hooks else ():
        args[i].register_hook(on_input(i))
    return outs if isinstance(out, tuple) else outs[0]
