"""PyTorch's deprecated scalar-first signatures, which it still accepts (its ``deprecated.yaml``).

Code from before PyTorch 1.5 passes the scale first: ``p.data.add_(-lr, grad)``,
``exp_avg.mul_(beta1).add_(1 - beta1, grad)``, ``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``,
``p.data.addcdiv_(-step_size, exp_avg, denom)``, ``torch.addmm(beta, input, alpha, mat1, mat2)``.
Hand-written optimizers in tutorials and course notebooks are full of them.  PyTorch 2 still runs
every one, with a single ``UserWarning`` a process ("This overload of add_ is deprecated"), so the
engine reads them too rather than fail with a ``TypeError`` -- or, worse, read ``add_(2, u)`` as
``add_(other=2, alpha=u)``.

The deprecated forms are told apart as PyTorch's argument parser tells them: the current
signatures take the scale by keyword only, so one positional argument more than they take, in the
place of a number (a Python or NumPy number, or a 0-d tensor), can only be the old form; a tensor
of 1+ dims there stays the ``TypeError`` it is in PyTorch.

====================  =====================================  ===============================
function              deprecated (after ``input``/``self``)  read as
====================  =====================================  ===============================
add, sub              ``(alpha, other)``                      ``(other, alpha=alpha)``
addcmul, addcdiv      ``(value, tensor1, tensor2)``           ``(tensor1, tensor2, value=value)``
addmm, addmv, addr,   ``(beta, [alpha,] a, b)`` for the       ``(a, b, beta=beta, alpha=alpha)``
baddbmm, addbmm       method; the function takes ``beta``
                      first, before ``input``
====================  =====================================  ===============================
"""

from __future__ import annotations

import contextvars
import functools
import numbers
import warnings
from collections.abc import Callable
from typing import Any

from .user_frame import stacklevel_outside_the_engine

#: ``name -> (the deprecated signature, the current one)``, as PyTorch's warning words them.
_WORDING = {
    "alpha": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "value": ("Number value, Tensor tensor1, Tensor tensor2", "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
    "beta": ("Number beta, Number alpha, Tensor a, Tensor b",
             "Tensor a, Tensor b, *, Number beta = 1, Number alpha = 1"),
}

_warned = [False]  # PyTorch warns once a process, whichever overload comes first (TORCH_WARN_ONCE)

#: The functions with a deprecated scale-first form whose in-place twin (``x.addcdiv_``) runs the
#: out-of-place method: the twin is named in the warning by :func:`naming_the_twin`, as PyTorch's.
SCALE_FIRST = frozenset({"addcmul", "addcdiv", "addmm", "addmv", "addr", "baddbmm", "addbmm"})

#: The in-place twin being called, whose name the warning says rather than the method's it runs
_twin: contextvars.ContextVar[str | None] = contextvars.ContextVar("deprecated_signature_twin", default=None)

#: A keyword default that tells "not given" from any value the caller may pass.
UNSET: Any = object()


def is_scale(v: Any) -> bool:
    """Whether ``v`` can be PyTorch's ``Scalar`` argument: a number, or anything of shape ``()``."""
    return isinstance(v, numbers.Number) or getattr(v, "shape", None) == ()


def warn_deprecated(name: str, kind: str) -> None:
    """PyTorch's one ``UserWarning`` a process for a deprecated signature."""
    if _warned[0]:
        return
    _warned[0] = True
    name = _twin.get() or name
    old, new = _WORDING[kind]
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the "
                  f"following signatures instead:\n\t{name}({new})", UserWarning,
                  stacklevel=stacklevel_outside_the_engine())


def naming_the_twin(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (``x.<name>_``, which runs ``x.<name>``), naming ``<name>_`` in a deprecated-form
    warning: PyTorch's says ``This overload of addcdiv_`` for ``p.data.addcdiv_(-step_size, m, d)``."""
    @functools.wraps(method)
    def named(self: Any, *args: Any, **kwargs: Any) -> Any:
        token = _twin.set(name + "_")
        try:
            return method(self, *args, **kwargs)
        finally:
            _twin.reset(token)
    return named


def other_and_alpha(name: str, other: Any, more: tuple, alpha: Any) -> tuple[Any, Any]:
    """``add_``'s and ``sub_``'s ``other`` and ``alpha`` where more than ``other`` came positionally (or no
    ``other`` at all): the deprecated ``(alpha, other)``; anything else is PyTorch's TypeError."""
    if other is UNSET:
        raise TypeError(f"{name}() missing 1 required positional argument: 'other'")
    if len(more) == 1 and alpha is UNSET and is_scale(other):
        warn_deprecated(name, "alpha")
        return more[0], other
    if len(more) == 1 and is_scale(other):
        raise TypeError(f"{name}() received an invalid combination of arguments - got unrecognized keyword "
                        f"arguments: alpha")
    raise TypeError(f"{name}() takes 1 positional argument but {1 + len(more)} were given")


def alpha_first(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(input, other, *, alpha)`` that also reads ``fn(input, alpha, other)``."""
    @functools.wraps(fn)
    def reading(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if len(args) == 2 and "alpha" not in kwargs and is_scale(args[0]):
            warn_deprecated(name, "alpha")
            return fn(input, args[1], alpha=args[0], **kwargs)
        return fn(input, *args, **kwargs)
    return reading


def value_first(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(input, tensor1, tensor2, *, value)`` that also reads ``fn(input, value, tensor1, tensor2)``."""
    @functools.wraps(fn)
    def reading(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if len(args) == 3 and "value" not in kwargs and is_scale(args[0]):
            warn_deprecated(name, "value")
            return fn(input, args[1], args[2], value=args[0], **kwargs)
        return fn(input, *args, **kwargs)
    return reading


def beta_first(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(input, a, b, *, beta, alpha)`` that also reads PyTorch's deprecated
    ``fn(beta, input, [alpha,] a, b)``; its ``as_method`` reads ``x.fn(beta, [alpha,] a, b)``."""
    @functools.wraps(fn)
    def function(*args: Any, **kwargs: Any) -> Any:
        if _scales_first(args, 4, kwargs):
            warn_deprecated(name, "beta")
            beta, input, *scale, a, b = args  # noqa: A001
            return fn(input, a, b, beta=beta, alpha=scale[0] if scale else 1, **kwargs)
        return fn(*args, **kwargs)

    @functools.wraps(fn)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _scales_first(args, 3, kwargs):
            warn_deprecated(name, "beta")
            beta, *scale, a, b = args
            return fn(self, a, b, beta=beta, alpha=scale[0] if scale else 1, **kwargs)
        return fn(self, *args, **kwargs)

    function.as_method = method  # type: ignore[attr-defined]
    return function


def _scales_first(args: tuple, short: int, kwargs: dict) -> bool:
    """Whether ``args`` are the fused products' deprecated ``(beta, [input,] [alpha,] a, b)``, of
    ``short`` arguments without ``alpha`` (4 for the function, whose ``input`` follows ``beta``, 3 for
    the method), both scales numbers and neither given by keyword."""
    if len(args) not in (short, short + 1) or "beta" in kwargs or "alpha" in kwargs:
        return False
    alpha = args[short - 2] if len(args) == short + 1 else 0
    return is_scale(args[0]) and is_scale(alpha)
