"""PyTorch's ``torch._foreach_*``: one elementwise op over a list of tensors.

Optimizer code writes its multi-tensor path with them (timm's NAdamW, Lion, Adan and Muon take it by
default: ``torch._foreach_mul_(exp_avgs, beta1)``, ``torch._foreach_addcdiv_(params, exp_avgs, denom,
step_size)``), so without them those optimizers stopped at their first step. PyTorch fuses each call
into few kernels; here each is the same op applied tensor by tensor -- the same numbers, no fusion.

PyTorch's argument forms are kept: a scalar or a single tensor applies to every tensor; a list (of
scalars or of tensors) gives one per tensor, and must be as long as the first list; ``value=`` of
``addcmul``/``addcdiv`` may be a 1-D tensor of one scalar per tensor. The out-of-place forms answer a
tuple, the in-place ones (trailing ``_``) write each tensor and answer the list (or tuple) they were
given, the same object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..tensor import Tensor

UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
         "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
         "sinh", "sqrt", "tan", "tanh", "trunc")
BINARY = ("add", "sub", "mul", "div", "pow", "clamp_min", "clamp_max", "maximum", "minimum")
TERNARY = ("addcmul", "addcdiv", "lerp")
#: ops with no in-place method on a tensor (written back with copy_), and their form for a scalar
_NO_INPLACE_METHOD = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _per_tensor(arg: Any, count: int, scalars_as_tensor: bool = False) -> list[Any]:
    """``arg`` spread over ``count`` tensors: a list gives one each (PyTorch's length checks), anything
    else is the same for all; ``scalars_as_tensor``: a 1-D tensor is one scalar per tensor (``value=``)."""
    if isinstance(arg, (list, tuple)):
        if len(arg) != count:
            if arg and all(isinstance(a, Tensor) for a in arg):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {count} and {len(arg)}")
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(arg)
    if scalars_as_tensor and isinstance(arg, Tensor) and arg.dim() == 1:
        if arg.numel() != count:
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return arg.tolist()
    return [arg] * count


def _tensors(self: Any, name: str, empty: bool = False) -> list[Tensor]:
    if not isinstance(self, (list, tuple)) or not all(isinstance(t, Tensor) for t in self):
        raise TypeError(f"_foreach_{name}: expected a list of tensors, got {type(self).__name__}")
    if not self and not empty:  # PyTorch refuses an empty list in every _foreach function (an optimizer with no
        raise RuntimeError("Tensor list must have at least one tensor.")  # state yet); ``empty``: the caller's words
    return list(self)


def _apply(name: str, tensors: list[Tensor], rows: list[list[Any]], keyword_rows: dict[str, list[Any]],
           inplace: bool) -> Any:
    outs = []
    for i, t in enumerate(tensors):
        args = [row[i] for row in rows]
        kwargs = {key: row[i] for key, row in keyword_rows.items()}
        method = name
        if name in _NO_INPLACE_METHOD and not isinstance(args[0], Tensor):
            method = _NO_INPLACE_METHOD[name]
        if inplace and method in _NO_INPLACE_METHOD:
            outs.append(t.copy_(getattr(t, method)(*args)))
        else:
            outs.append(getattr(t, method + "_" if inplace else method)(*args, **kwargs))
    return tuple(outs)


def _unary(name: str, inplace: bool) -> Callable[..., Any]:
    def op(self: Sequence[Tensor]) -> Any:
        out = _apply(name, _tensors(self, name), [], {}, inplace)
        return self if inplace else out  # (PyTorch's in-place forms answer the very list or tuple given)
    return op


def _binary(name: str, inplace: bool) -> Callable[..., Any]:
    def op(self: Any, other: Any, *, alpha: Any = None) -> Any:
        if name == "pow" and not inplace and not isinstance(self, (list, tuple)):  # _foreach_pow(scalar, exps)
            return tuple(Tensor.__rpow__(e, self) for e in _tensors(other, name))
        tensors = _tensors(self, name)  # (_foreach_pow_(scalar, exps), with nothing to write, is refused here)
        keyword_rows = {} if alpha is None else {"alpha": [alpha] * len(tensors)}
        out = _apply(name, tensors, [_per_tensor(other, len(tensors))], keyword_rows, inplace)
        return self if inplace else out
    return op


def _ternary(name: str, inplace: bool) -> Callable[..., Any]:
    def op(self: Any, tensor1: Any, tensor2_or_weight: Any, value: Any = 1) -> Any:
        tensors = _tensors(self, name)
        rows = [_per_tensor(tensor1, len(tensors)), _per_tensor(tensor2_or_weight, len(tensors))]
        keyword_rows = {} if name == "lerp" else {"value": _per_tensor(value, len(tensors), scalars_as_tensor=True)}
        out = _apply(name, tensors, rows, keyword_rows, inplace)
        return self if inplace else out
    return op


def _zero_(self: Sequence[Tensor]) -> Any:
    for t in _tensors(self, "zero_"):
        t.zero_()
    return self


def _copy_(self: Sequence[Tensor], src: Sequence[Tensor], non_blocking: bool = False) -> Any:
    tensors = _tensors(self, "copy_")
    for t, s in zip(tensors, _per_tensor(list(src), len(tensors))):
        t.copy_(s)
    return self


def _norm(self: Sequence[Tensor], ord: Any = 2, dtype: Any = None) -> tuple[Tensor, ...]:  # noqa: A002
    from ..linalg import vector_norm

    return tuple(vector_norm(t, ord, dtype=dtype) for t in _tensors(self, "norm"))


def _clone(self: Sequence[Tensor], *, memory_format: Any = None) -> tuple[Tensor, ...]:
    return tuple(t.clone() if memory_format is None else t.clone(memory_format=memory_format)
                 for t in _tensors(self, "clone"))


def _max(self: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """The largest value of each tensor (NaN where it holds one), PyTorch's refusal of an empty one."""
    tensors = _tensors(self, "max")
    if any(t.numel() == 0 for t in tensors):
        raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max over zero elements "
                           "is undefined.")
    return tuple(t.max() for t in tensors)


def _mm(self: Sequence[Tensor], mat2: Sequence[Tensor]) -> tuple[Tensor, ...]:
    tensors, others = _tensors(self, "mm", empty=True), _tensors(mat2, "mm", empty=True)
    if not tensors:  # (mm's own words for an empty first list; a length mismatch before an empty second one)
        raise RuntimeError("_foreach_mm requires non-empty tensor lists")
    if len(others) != len(tensors):
        raise RuntimeError("_foreach_mm: self and mat2 must have the same number of tensors")
    return tuple(a.mm(b) for a, b in zip(tensors, others))


def _powsum(self: Sequence[Tensor], ord: Any = 2, dtype: Any = None) -> tuple[Tensor, ...]:  # noqa: A002
    """``sum(|x| ** ord)`` of each tensor: a vector norm's sum before its root, literally -- ``ord = 0``
    counts every element (``0 ** 0`` is 1) and ``+-inf`` gives inf, as PyTorch's; complex values give
    their magnitudes' sum, real. Integer and boolean tensors are refused, as PyTorch's CPU kernel refuses
    them: naming ``'Long'`` whatever their own dtype (torch 2.13's words for int8, uint8 and bool alike)."""
    tensors = _tensors(self, "powsum")
    for t in tensors:
        if not (t.is_floating_point() or t.is_complex()):
            raise NotImplementedError("\"powsum_cpu\" not implemented for 'Long'")
    return tuple((t.abs() ** ord).sum(dtype=dtype) for t in tensors)


def _functions() -> dict[str, Callable[..., Any]]:
    made: dict[str, Callable[..., Any]] = {"_foreach_zero_": _zero_, "_foreach_copy_": _copy_,
                                           "_foreach_norm": _norm, "_foreach_clone": _clone, "_foreach_max": _max,
                                           "_foreach_mm": _mm, "_foreach_powsum": _powsum}
    for names, make in ((UNARY, _unary), (BINARY, _binary), (TERNARY, _ternary)):
        for name in names:
            for inplace in (False, True):
                fn = make(name, inplace)
                fn.__name__ = fn.__qualname__ = f"_foreach_{name}" + ("_" if inplace else "")
                fn.__doc__ = f"``Tensor.{name}{'_' if inplace else ''}`` of each tensor of the list (PyTorch's " \
                             f"``torch.{fn.__name__}``)."
                made[fn.__name__] = fn
    return made


#: every ``_foreach_*`` function, by PyTorch's name (bound as ``mg._foreach_add_`` and so on)
FUNCTIONS = _functions()
