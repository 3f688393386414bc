"""PyTorch's ``out=`` keyword, given once to the functions that take it (``mg.add(a, b, out=c)``,
``mg.zeros(2, 3, out=c)``): the result written into ``out``, which is returned.

As PyTorch's: ``out`` must be a Tensor; with grad mode on, neither ``out`` nor an input may require
grad (the write is not recorded); an ``out`` of another shape is resized (with PyTorch's warning
when it held elements); and a result is written into ``out``'s dtype only where PyTorch would --
each function's rule (:data:`CAST`, :data:`EXACT`, ...) is named where it is declared, in
``functional/public_names.py`` and ``creation.py``.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from .backend import as_dtype, cpp_type_name, scalar_type_name
from .grad_mode import is_grad_enabled, no_grad
from .tensor import Tensor, refuse_overlap, refuse_partial_overlap

__all__ = ["with_out", "CAST", "CAT", "EXACT", "WHERE", "CLAMP", "CREATION", "RANGE", "REDUCTION",
           "MEAN"]

#: How ``out``'s dtype may differ from the result's: each PyTorch's rule with its error.
CAST = "cast"  # a cast PyTorch allows (not float into an integer, complex into real, anything into bool)
REDUCTION = "reduction"  # sum: reduced in out's dtype; a dtype= given must be out's own
MEAN = "mean"  # REDUCTION, where the input's dtype can be cast into out's
CAT = "cat"  # CAST, refused with cat's TypeError (torch.stack says torch.cat too)
EXACT = "exact"  # matmul, mm: the result's dtype only
WHERE = "where"  # where: the result's dtype only, in its own words
CLAMP = "clamp"  # clamp: the result's dtype only, in its own words
CREATION = "creation"  # zeros, rand, ...: out's dtype and device are the result's; resized silently
RANGE = "range"  # arange: CREATION, with its own warning when out's size differs

#: PyTorch's kernels write ``out`` while they read the inputs: the joining functions refuse an ``out``
#: that shares any memory with an input (``cat([a, b], out=a)``), the elementwise ones an ``out`` that
#: shares some but not all of an input's (``add(x[:-1], 1, out=x[1:])``; ``out=x`` itself is fine), as do
#: the running sums and products (``cumsum(x[:-1], 0, out=x[1:])``).
#: The engine computes first and copies after, so its answer would be defined -- and differ from
#: PyTorch's refusal, and from what a GPU's kernel would leave.
_JOINS = frozenset({"cat", "concat", "stack"})
_ELEMENTWISE = frozenset({"add", "sub", "mul", "div", "exp", "log", "clamp", "where", "addcmul", "addcdiv",
                          "cumsum", "cumprod"})


def _refuse_overlap(name: str, out: Tensor, args: tuple, kwargs: dict) -> None:
    operands = [*args, *kwargs.values()]
    if name in _JOINS:
        refuse_overlap(name, out, tuple(operands))
    elif name in _ELEMENTWISE:
        for operand in operands:
            refuse_partial_overlap(name, out, operand)


def _can_cast(source: Any, target: Any) -> bool:
    """PyTorch's ``can_cast``: no complex into real, no float into an integer, nothing into bool."""
    kinds = (source.kind, target.kind)
    return not (kinds[0] == "c" and kinds[1] != "c" or kinds[0] == "f" and kinds[1] in "iub"
                or kinds[0] != "b" and kinds[1] == "b")


def _check_dtype(rule: str, result: Any, out: Any, asked: Any) -> None:
    """Refuse, as PyTorch does, a result of dtype ``result`` written into ``out``'s dtype."""
    if result == out:
        return
    if rule in (REDUCTION, MEAN) and asked is not None:
        raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(asked)}, but got "
                           f"{cpp_type_name(out)} instead")
    if rule == EXACT:
        raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(result)}, but got "
                           f"{cpp_type_name(out)} instead")
    if rule == WHERE:
        raise RuntimeError(f"Expected out type to be {scalar_type_name(result)} but got {scalar_type_name(out)}")
    if rule == CLAMP:
        raise RuntimeError(f"Found dtype {scalar_type_name(out)} but expected {scalar_type_name(result)}")
    if not _can_cast(result, out):
        if rule == CAT:
            raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                            f"{scalar_type_name(out)}")
        raise RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired output type "
                           f"{scalar_type_name(out)}")


def _check_out(name: str, out: Any, args: tuple, kwargs: dict) -> None:
    """``out`` a Tensor, and nothing that requires grad where grad mode would have to record the write."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    operands = [*args, *kwargs.values()]
    operands += [item for arg in operands if isinstance(arg, (list, tuple)) for item in arg]  # cat's, stack's
    tensors = [t for t in (out, *operands) if isinstance(t, Tensor)]
    if is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if any(t._tangents for t in tensors):  # a dual number of forward mode (mg.func.jvp, forward_ad)
        raise NotImplementedError(f"Trying to use forward AD with {name.removeprefix('aten::')}_out that does "
                                  "not support it because it is an out= function")


def _reduced_in_out(rule: str, out: Tensor, args: tuple, kwargs: dict) -> dict:
    """A reduction's keywords with ``dtype=out.dtype``: PyTorch reduces in the dtype of ``out`` (a sum
    of floats into an int64 ``out`` sums the values cast to int64); a mean only where the input's
    dtype can be cast into it."""
    x = args[0] if args else kwargs.get("input")
    if rule == MEAN and isinstance(x, Tensor):
        _check_dtype(CAST, x.dtype, out.dtype, None)
    return {**kwargs, "dtype": out.dtype}


def _created_in_out(out: Tensor, kwargs: dict) -> dict:
    """A creation function's keywords with ``out``'s dtype and device where none is given."""
    asked = kwargs.get("dtype")
    if asked is not None and as_dtype(asked) != out.dtype:
        raise RuntimeError(f"dtype {scalar_type_name(as_dtype(asked))} does not match dtype of out parameter "
                           f"({scalar_type_name(out.dtype)})")
    return {**kwargs, "dtype": out.dtype, "device": kwargs.get("device") or out.device}


def _write(out: Tensor, result: Tensor, rule: str) -> Tensor:
    """``result`` copied into ``out`` -- resized first where its shape differs -- and ``out`` returned."""
    shape = tuple(result.shape)
    with no_grad():
        if tuple(out.shape) != shape:
            if out.numel() and rule == RANGE:
                warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is "
                              f"{out.numel()} which does not match the computed number of elements "
                              f"{result.numel()}. Note that this may occur as a result of rounding error. The out "
                              f"tensor will be resized to a tensor of shape ({result.numel()},).",
                              UserWarning, stacklevel=3)
            elif out.numel() and rule != CREATION:
                warnings.warn(f"An output with one or more elements was resized since it had shape "
                              f"{list(out.shape)}, which does not match the required output shape {list(shape)}. "
                              "This behavior is deprecated, and in a future PyTorch release outputs will not be "
                              "resized unless they have zero elements. You can explicitly reuse an out tensor t "
                              "by resizing it, inplace, to zero elements with t.resize_(0).",
                              UserWarning, stacklevel=3)
            out.set_(Tensor.constant(out._device.xp.empty(shape, dtype=out._data.dtype), out._device))
        out.copy_(result)
    return out


def with_out(name: str, function: Callable[..., Tensor], rule: str = CAST) -> Callable[..., Tensor]:
    """``function`` taking PyTorch's ``out=`` as well (None: the function itself), ``name`` as its errors
    say it (``"add"``, ``"aten::zeros"``) and ``rule`` for the dtypes ``out`` may have."""

    @functools.wraps(function)
    def with_out_argument(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        if out is None:
            return function(*args, **kwargs)
        _check_out(name, out, args, kwargs)
        _refuse_overlap(name, out, args, kwargs)
        asked = None if kwargs.get("dtype") is None else as_dtype(kwargs["dtype"])  # the caller's own
        if rule in (CREATION, RANGE):
            kwargs = _created_in_out(out, kwargs)
        elif rule in (REDUCTION, MEAN) and asked is None:
            kwargs = _reduced_in_out(rule, out, args, kwargs)
        result = function(*args, **kwargs)
        _check_dtype(rule, result.dtype, out.dtype, asked)
        return _write(out, result, rule)

    with_out_argument.__signature__ = _with_out_parameter(function)  # type: ignore[attr-defined]
    return with_out_argument


def _with_out_parameter(function: Callable[..., Any]) -> inspect.Signature:
    """``function``'s signature with ``out=None`` among its keywords (docs/api.md shows it)."""
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.name != "out"]
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    tail = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    return signature.replace(parameters=[p for p in params if p not in tail] + [out] + tail)
