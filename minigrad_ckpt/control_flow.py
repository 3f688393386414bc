"""PyTorch's structured control flow, ``torch.cond`` and ``torch.while_loop``, run eagerly.

PyTorch offers them so that ``torch.compile`` and ``torch.export`` can capture a branch or a loop
whose choice depends on a tensor's value.  Here every program runs eagerly (``mg.compile``
returns the function), so they are what they mean: ``cond`` calls one branch, ``while_loop``
calls its body while its condition holds.  The tape records whatever the branch or body
computes, so gradients flow through the path taken (PyTorch's eager ``while_loop`` has no
autograd).  The checks are PyTorch's: a predicate of one element, operands as a tuple or list,
and a body that keeps each carried value's dtype and shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .tensor import Tensor

__all__ = ["cond", "while_loop"]


def _truth(pred: Any, what: str) -> bool:
    """``pred`` as a Python bool: a bool, a number, or a tensor of one element."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected {what} to be bool or single-element tensor, but got {pred}.")
        return bool(pred.item())
    return bool(pred)


def _sequence(values: Any, name: str) -> tuple:
    if not isinstance(values, (tuple, list)):
        raise TypeError(f"{name} must be a tuple or list of tensors (each passed as one argument), got "
                        f"{type(values).__name__}")
    return tuple(values)


def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], operands: Any = ()) -> Any:
    """``true_fn(*operands)`` if ``pred`` holds, else ``false_fn(*operands)`` (``torch.cond``).

    ``pred`` is a bool or a tensor of one element; ``operands`` a tuple or list.

    >>> mg.cond(x.sum() > 0, lambda a: a.cos(), lambda a: a.sin(), (x,))
    """
    args = _sequence(operands, "cond: operands")
    return (true_fn if _truth(pred, "pred") else false_fn)(*args)


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any], carried_inputs: Any) -> Any:
    """``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` holds; the last ``carried``
    (``torch.while_loop``).  The body returns as many values as it is given, each of its input's
    dtype and shape (PyTorch's rule, which lets a compiler keep one buffer per value).  A body
    that returns one tensor, not a tuple, makes the result that tensor, as torch 2.13's; where
    the body never runs the result is a tuple (torch's traces the body to learn its structure).

    >>> i, total = mg.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), (mg.tensor(0), x))
    """
    carried: Any = _sequence(carried_inputs, "while_loop: carried_inputs")
    bare = False  # a body returning one value, not a tuple: torch 2.13 returns that value, bare
    while _truth(cond_fn(*carried), "cond_fn's output"):
        out = body_fn(*carried)
        bare = not isinstance(out, (tuple, list))
        _check_same_metadata((out,) if bare else out, carried)
        carried = (out,) if bare else out
    return carried[0] if bare else tuple(carried)


def _check_same_metadata(out: Any, carried: tuple) -> None:
    """PyTorch's refusal of a body whose outputs are not its inputs' kind."""
    if len(out) != len(carried):
        raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same metadata but found: "
                           f"{len(out)} outputs for {len(carried)} carried inputs")
    for i, (o, c) in enumerate(zip(out, carried)):
        if isinstance(c, Tensor) and isinstance(o, Tensor):
            for what, a, b in (("dtype", o.dtype, c.dtype), ("shape", tuple(o.shape), tuple(c.shape))):
                if a != b:
                    raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same metadata but "
                                       f"found: pair[{i}] differ in '{what}: {a} vs {b}'")
