"""``mg.autograd.functional``: PyTorch's ``torch.autograd.functional`` -- the derivative itself,
called as ``jacobian(func, inputs)`` -- on top of :mod:`minigrad_ckpt.func`'s transforms (which
return functions, as ``torch.func`` does).

``inputs`` is a Tensor or a tuple of Tensors; the results follow PyTorch's nesting: for one
input Tensor, one result per output; for a tuple of inputs, a tuple over the inputs.  Without
``create_graph=True`` the results are detached, as PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import func as _func
from ..tensor import Tensor

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp"]


def _as_tuple(inputs: Any) -> tuple[bool, tuple]:
    return (True, (inputs,)) if isinstance(inputs, Tensor) else (False, tuple(inputs))


def _finish(result: Any, create_graph: bool) -> Any:
    """Results detached unless ``create_graph`` (nested tuples kept)."""
    if isinstance(result, tuple):
        return tuple(_finish(r, create_graph) for r in result)
    return result if create_graph or not isinstance(result, Tensor) else result.detach()


def _argnums(single: bool, n: int) -> Any:
    return 0 if single else tuple(range(n))


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """d func(inputs) / d inputs, of shape ``output.shape + input.shape`` (PyTorch's)."""
    single, args = _as_tuple(inputs)
    make = _func.jacfwd if strategy == "forward-mode" else _func.jacrev
    return _finish(make(func, _argnums(single, len(args)))(*args), create_graph)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func``: ``input.shape + input.shape`` (for a tuple of inputs, a
    tuple of tuples, block ``[i][j]`` for inputs ``i`` and ``j``)."""
    single, args = _as_tuple(inputs)
    return _finish(_func.hessian(func, _argnums(single, len(args)))(*args), create_graph)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), v^T J)``; ``v`` may be left out for a scalar output (it is 1)."""
    single, args = _as_tuple(inputs)
    out, pullback = _func.vjp(func, *args)
    if v is None:
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("vjp: v may be left out only for a function with a single-element output")
        from ..creation import ones_like

        v = ones_like(out)
    grads = pullback(v)
    return _finish(out, create_graph), _finish(grads[0] if single else tuple(grads), create_graph)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), J v)`` (``v`` may be left out for a single-element input)."""
    single, args = _as_tuple(inputs)
    if v is None:
        from ..creation import ones_like

        v = tuple(ones_like(a) for a in args)
    tangents = (v,) if single else tuple(v)
    out, tangent_out = _func.jvp(func, args, tangents)
    return _finish(out, create_graph), _finish(tangent_out, create_graph)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), H v)`` for a scalar ``func``."""
    single, args = _as_tuple(inputs)
    tangents = (v,) if single else tuple(v)
    out, hv = _func.hvp(func, args, tangents)
    return _finish(out, create_graph), _finish(hv[0] if single else tuple(hv), create_graph)
