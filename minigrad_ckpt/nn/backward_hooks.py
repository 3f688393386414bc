"""A module's full backward hooks: ``hook(module, grad_input, grad_output)`` once its gradients are known.

PyTorch's ``register_full_backward_hook`` meaning, made as PyTorch makes it (``torch.utils.hooks.BackwardHook``):
the module's tensor inputs pass through one identity node, and its tensor outputs through another (each
a custom :class:`~minigrad_ckpt.autograd.Function`, one node on the tape whatever the number of tensors).

* The outputs' node runs when the gradients of all the outputs are known: it collects ``grad_output``
  (None for an output no gradient reached), lets the backward pre-hooks replace it, and sends what they
  return into the module.  If no input requires grad, the hooks are called there, with ``grad_input``
  of Nones.
* The inputs' node runs when the module's backward has sent everything to its inputs: the hooks get
  ``grad_input`` -- one entry per positional argument: None for a non-tensor, zeros for a tensor that
  does not require grad or that no gradient reached (the node's gradients are materialized, as
  PyTorch's) -- and may return a new one, which is what flows on.

One node per side (not a hook per tensor) is what makes the hooks fire once, with every entry, even
when a gradient reaches only some of the inputs, and lets a hook replace any number of entries.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..autograd.function import Function
from ..functional.complex_numbers import view_as_complex, view_as_real
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["call_with_backward_hooks", "hook_output_node"]


# PyTorch's words (BackwardHook) when the hooks see grad_input of Nones: a user may have meant the inputs
_FIRING_ON_OUTPUTS = ("Full backward hook is firing when gradients are computed with respect to module outputs since "
                      "no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                      "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


class _HookedCall:
    """One call of a module with full backward hooks: the hooks, and what the outputs' node learned."""

    def __init__(self, module: Any, hooks: list[Callable], pre_hooks: list[Callable], n_inputs: int) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.n_inputs = n_inputs
        self.input_index: list[int] | None = None  # positions of the tensor inputs, if one requires grad
        self.output_index: list[int] = []
        self.n_outputs = 0
        self.grad_outputs: tuple | None = None  # set by the outputs' node, used by the inputs' node

    def output_gradients(self, grads: tuple) -> tuple:
        """The outputs' node's backward: ``grad_output`` through the pre-hooks (and, where no input
        requires grad, the hooks); what goes into the module."""
        grad_outputs = _pack_with_none(self.output_index, grads, self.n_outputs)
        grad_outputs = _replaced_by(self.pre_hooks, lambda pre, go: pre(self.module, go), grad_outputs,
                                    "pre hook", "grad_output")
        self.grad_outputs = grad_outputs
        if self.input_index is None:  # no input asks for a gradient: PyTorch calls the hooks here
            warnings.warn(_FIRING_ON_OUTPUTS, UserWarning, stacklevel=stacklevel_outside_the_engine())
            grad_input = (None,) * self.n_inputs
            for hook in self.hooks:
                r = hook(self.module, grad_input, grad_outputs)
                if r is not None and not (isinstance(r, tuple) and all(e is None for e in r)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def input_gradients(self, grads: tuple) -> tuple:
        """The inputs' node's backward: ``grad_input`` through the hooks; what flows on to the inputs."""
        if self.grad_outputs is None:  # the gradient came to the inputs without passing the outputs
            return grads
        grad_input = _replaced_by(self.hooks, lambda hook, gi: hook(self.module, gi, self.grad_outputs),
                                  _pack_with_none(self.input_index or [], grads, self.n_inputs), "hook", "grad_input")
        self.grad_outputs = None
        return tuple(grad_input[i] for i in self.input_index or [])


def _replaced_by(hooks: list[Callable], call: Callable, grads: tuple, hook_kind: str, what: str) -> tuple:
    """``grads`` passed through ``hooks`` in turn (``call(hook, grads)``): a hook that returns something
    replaces them, with as many entries (PyTorch's check and words)."""
    for hook in hooks:
        r = call(hook, grads)
        if r is None:
            continue
        if len(r) != len(grads):
            raise RuntimeError(f"Backward {hook_kind} returned an invalid number of {what}, got {len(r)}, but "
                               f"expected {len(grads)}")
        grads = tuple(r)
    return grads


def _pack_with_none(index: list[int], values: tuple, size: int) -> tuple:
    """``values`` at the positions ``index`` of a tuple of ``size``, None elsewhere."""
    out: list = [None] * size
    for i, v in zip(index, values):
        out[i] = v
    return tuple(out)


class BackwardHookFunction(Function):
    """The identity on a module's tensor inputs (or outputs), one node whose backward is the call's
    (named as PyTorch's: ``grad_fn`` ``BackwardHookFunctionBackward``, and its refusal of in-place changes
    to the outputs names it)."""

    @staticmethod
    def forward(ctx: Any, call: _HookedCall, side: str, as_real: tuple, *tensors: Tensor) -> tuple:
        ctx.call, ctx.side, ctx.as_real = call, side, as_real
        ctx.mark_non_differentiable(*(t for t in tensors if not t.requires_grad))
        # inputs: a tensor no gradient reached gets zeros (PyTorch's grad_input); outputs: None
        ctx.set_materialize_grads(side == "inputs")
        ctx.requires = tuple(t.requires_grad for t in tensors)
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        call = ctx.call
        grads = _convert(grads, ctx.as_real, view_as_complex)  # the hooks see the complex gradients
        new = call.input_gradients(grads) if ctx.side == "inputs" else call.output_gradients(grads)
        # what flows on: only into tensors that require grad (the others are not on the graph)
        new = _convert(new, ctx.as_real, view_as_real)
        return (None, None, None, *(g if r else None for g, r in zip(new, ctx.requires)))

    @staticmethod
    def jvp(ctx: Any, *tangents: Any) -> tuple:
        return tangents[3:]  # the identity (forward mode runs no hooks)


def _convert(grads: tuple, which: tuple, view: Callable) -> tuple:
    return tuple(view(g) if w and g is not None else g for g, w in zip(grads, which))


def _gate(call: _HookedCall, side: str, values: tuple) -> tuple[tuple, list[int] | None]:
    """``values`` with their tensors passed through one gate, and the tensors' positions -- or
    ``values`` as they are and None when no tensor among them requires grad (PyTorch's rule)."""
    index = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    if not any(values[i].requires_grad for i in index):
        return values, None
    tensors = [values[i] for i in index]
    # a gate is one node, whose outputs are packed into one array: complex tensors among real ones
    # that require grad go through it as real views (PyTorch's view_as_real), and come back complex
    kinds = {t.is_complex() for t in tensors if t.requires_grad and t.dtype.kind in "fc"}
    as_real = tuple(len(kinds) > 1 and t.is_complex() for t in tensors)
    gated = BackwardHookFunction.apply(call, side, as_real, *_convert(tuple(tensors), as_real, view_as_real))
    out = list(values)
    for i, t in zip(index, _convert(gated, as_real, view_as_complex)):
        out[i] = t
    return tuple(out), index


def call_with_backward_hooks(module: Any, hooks: list[Callable], args: tuple, run: Callable[[tuple], Any],
                             pre_hooks: list[Callable] | None = None) -> Any:
    """``run(args)`` with ``hooks`` called as full backward hooks of ``module``, and ``pre_hooks`` as its
    full backward pre-hooks (``hook(module, grad_output)`` before the gradient enters the module, which
    may return a new ``grad_output``).  The output must be a Tensor or a tuple (of Tensors and other
    things) for the hooks to be called, as in PyTorch, which warns of any other output."""
    if not is_grad_enabled():
        out = run(args)
        _warn_if_unhookable(out)
        return out
    call = _HookedCall(module, hooks, pre_hooks or [], len(args))
    # the inputs pass a gate with only pre-hooks too, as PyTorch's BackwardHook passes them: the module
    # then sees views that refuse in-place changes (nn.ReLU(inplace=True)), PyTorch's error
    args, call.input_index = _gate(call, "inputs", args)
    out = run(args)
    if _warn_if_unhookable(out):
        return out
    outs = out if isinstance(out, tuple) else (out,)
    call.n_outputs = len(outs)
    outs, index = _gate(call, "outputs", outs)
    call.output_index = index or []
    return outs if isinstance(out, tuple) else outs[0]


def _warn_if_unhookable(out: Any) -> bool:
    """Whether ``out`` is an output the full backward hooks cannot see (a dict, a list): then the hooks
    never fire, which PyTorch says with this warning rather than in silence."""
    if isinstance(out, (Tensor, tuple)):
        return False
    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but "
                  f"received {type(out)}", UserWarning, stacklevel=stacklevel_outside_the_engine())
    return True


def hook_output_node(module: Any, args: tuple, out: Any, hooks: list[Callable]) -> Any:
    """PyTorch's deprecated (non-full) backward hooks of ``module``, put on the node that made its first
    output tensor (the first value of a dict, the first item of a tuple, on down): each is called as
    ``hook(module, grad_input, grad_output)`` by that node's ``grad_fn.register_hook`` -- the node's
    gradients, not the module's inputs' -- and may return new ``grad_input``.  ``out`` is returned.
    Where that node's gradients are not the module's, PyTorch's FutureWarning says which part is missing."""
    first = out
    while not isinstance(first, Tensor):
        first = next(v for v in first.values() if isinstance(v, Tensor)) if isinstance(first, dict) else first[0]
    if first.grad_fn is not None:
        for hook in hooks:
            first.grad_fn.register_hook(_OnModule(hook, module))
        missing = _what_the_node_misses(args, out, first.grad_fn)
        if missing:
            warnings.warn(missing, FutureWarning, stacklevel=stacklevel_outside_the_engine())
    return out


_DEPRECATED = "is deprecated and will be removed in future versions. This hook will be missing some "
_ASK_FULL = " Please use register_full_backward_hook to get the documented behavior."


def _what_the_node_misses(args: tuple, out: Any, node: Any) -> str | None:
    """PyTorch's warning (``Module._maybe_warn_non_full_backward_hook``, its words) when ``node``'s
    gradients are not the module's: outputs or inputs that are not Tensors, outputs of several nodes,
    or a forward of several nodes (the node's inputs are not the module's inputs' nodes -- a leaf's
    ``AccumulateGrad``, a constant, or a parameter among them); None when they are."""
    outs = out if isinstance(out, tuple) else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        return ("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                f"Tensors {_DEPRECATED}of the grad_output.{_ASK_FULL}")
    if not all(isinstance(a, Tensor) for a in args):
        return ("Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
                f"tuple of Tensors {_DEPRECATED}of the grad_input.{_ASK_FULL}")
    out_nodes = {id(o.grad_fn) for o in outs if o.grad_fn is not None}
    if len(out_nodes) > 1:
        return ("Using a non-full backward hook when outputs are generated by different autograd Nodes "
                f"{_DEPRECATED}grad_output.{_ASK_FULL}")
    input_nodes = {id(a.grad_fn) for a in args if a.grad_fn is not None}
    next_nodes = [n for n, _ in node.next_functions]
    if any(n is None for n in next_nodes) or input_nodes != {id(n) for n in next_nodes}:
        return ("Using a non-full backward hook when the forward contains multiple autograd Nodes "
                f"{_DEPRECATED}grad_input.{_ASK_FULL}")
    return None


class _OnModule:
    """A module's hook as a node hook: the module first (PyTorch's ``_WrappedHook``)."""

    def __init__(self, hook: Callable, module: Any) -> None:
        self.hook, self.module = hook, module
        self.__qualname__ = getattr(hook, "__qualname__", repr(hook))  # named as the user's in errors

    def __call__(self, grad_input: tuple, grad_output: tuple) -> Any:
        return self.hook(self.module, grad_input, grad_output)
