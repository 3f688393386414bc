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
from typing import Any, NamedTuple

from .backend import as_dtype, cpp_type_name, scalar_type_name
from .grad_mode import is_grad_enabled, no_grad
from .tensor import Tensor, refuse_overlap, refuse_partial_overlap
from .user_frame import stacklevel_outside_the_engine

__all__ = ["with_out", "OutRule", "rule", "can_cast", "same_dtype", "out_kind", "CAST", "CAT", "EXACT", "FOUND",
           "ANY", "WHERE", "CREATION", "RANGE", "SPACED", "REDUCTION", "MEAN"]


def can_cast(source: Any, target: Any) -> bool:
    """PyTorch's ``can_cast``: no complex into real, no float into an integer, nothing into bool."""
    kinds = (source.kind, target.kind)
    return not (kinds[0] == "c" and kinds[1] != "c" or kinds[0] == "f" and kinds[1] in "iub"
                or kinds[0] != "b" and kinds[1] == "b")


def same_dtype(source: Any, target: Any) -> bool:
    """The result's dtype only."""
    return source == target


def out_kind(kinds: str) -> Callable[[Any, Any], bool]:
    """An ``out`` of any dtype of these NumPy kinds (``"f"``: floating point; ``"bu"``: bool or unsigned)."""
    return lambda source, target: target.kind in kinds


class OutRule(NamedTuple):
    """Which dtypes an ``out`` may have beside the result's, and PyTorch's words for one it may not.

    ``takes(result, out)`` says whether a result of dtype ``result`` is written into an ``out`` of
    dtype ``out`` (cast to it); ``message`` is PyTorch's, its fields the function's ``{name}`` and the
    two dtypes spelt as PyTorch spells them there: ``{result}``/``{out}`` its scalar types
    (``Double``), ``{result_cpp}``/``{out_cpp}`` C++'s (``double``).  Where PyTorch's words depend on
    the dtypes, ``message`` is a function of the two dtypes that picks the words."""

    takes: Callable[[Any, Any], bool]
    message: str | Callable[[Any, Any], str]
    error: type[Exception] = RuntimeError

    def check(self, name: str, result: Any, out: Any) -> None:
        """Refuse, as PyTorch does, a result of dtype ``result`` written into ``out``'s dtype."""
        if result != out and not self.takes(result, out):
            words = self.message if isinstance(self.message, str) else self.message(result, out)
            raise self.error(words.format(
                name=name, result=scalar_type_name(result), out=scalar_type_name(out),
                result_cpp=cpp_type_name(result), out_cpp=cpp_type_name(out)))


def rule(message: str | Callable[[Any, Any], str], takes: Callable[[Any, Any], bool] = same_dtype,
         error: type[Exception] = RuntimeError) -> OutRule:
    """A function's own rule: by default the result's dtype only, refused in ``message``'s words."""
    return OutRule(takes, message, error)


#: How ``out``'s dtype may differ from the result's: PyTorch's rules, each with its words.  A
#: function whose words are its own declares its rule beside its name with :func:`rule`.
CAST = rule("result type {result} can't be cast to the desired output type {out}", can_cast)  # add, sin, ...
EXACT = rule("Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead")  # matmul, mm, sort
FOUND = rule("Found dtype {out} but expected {result}")  # abs, floor, clamp: the result's dtype only
ANY = rule("", lambda source, target: True)  # eq, logical_and: a bool result goes into any dtype
CAT = rule("torch.cat(): input types can't be cast to the desired output type {out}", can_cast, TypeError)
WHERE = rule("Expected out type to be {result} but got {out}")  # where
_MEAN_OVER_ALL = rule("mean.dtype_out(): input types can't be cast to the desired output type {out}", can_cast)
REDUCTION = "reduction"  # sum: reduced in out's dtype; a dtype= given must be out's own
MEAN = "mean"  # REDUCTION, where the input's dtype can be cast into out's
CREATION = "creation"  # zeros, rand, ...: out's dtype and device are the result's; resized silently
RANGE = "range"  # arange: SPACED, with its own warning when out's size differs
#: linspace, logspace: CREATION, but an ``out`` holding as many elements as the sequence keeps its own
#: shape and memory (PyTorch's kernels resize only an ``out`` of another length), so a view's base sees
#: the values: ``arange(4, out=x.narrow(1, 1, 2))`` fills two columns of ``x``
SPACED = "spaced"

#: PyTorch's kernels write ``out`` while they read the inputs, and refuse an ``out`` whose memory they
#: cannot read and write in one pass.  The engine computes first and copies after, so its answer would
#: be defined -- and differ from PyTorch's refusal, and from what a GPU's kernel would leave.  Which
#: operands each function checks, and how, read off torch 2.13 (every function's op_db sample with an
#: ``out`` sharing one element with its input, ``tests/test_out_overlap.py``):
#:
#: * the elementwise functions (PyTorch's TensorIterator: ``sin``, ``add``, ``eq``, the special
#:   functions, and what runs on it -- ``sort``, ``topk``, ``max(x, dim)``, ``cumsum``): an ``out``
#:   sharing some but not all of an operand's memory (``sin(x[:-1], out=x[1:])``; ``out=x`` is fine);
_ELEMENTWISE = frozenset("""
    abs absolute acos acosh add addcdiv addcmul angle arccos arccosh arcsin arcsinh arctan arctan2 arctanh
    asin asinh atan atan2 atanh bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor ceil clamp clamp_max clamp_min conj_physical copysign cos cosh cumprod
    cumsum deg2rad digamma div eq erf erfc erfinv exp exp2 expm1 fix float_power floor floor_divide fmax
    fmin fmod frac frexp gcd ge greater greater_equal gt heaviside hypot i0 igamma igammac isneginf
    isposinf kthvalue lcm ldexp le lerp less less_equal lgamma log log10 log1p log2 logaddexp logaddexp2
    logcumsumexp logical_and logical_not logical_or logical_xor logit lt max maximum min minimum mode msort
    mul nan_to_num ne neg negative nextafter normal not_equal outer pow rad2deg reciprocal remainder renorm
    round rsqrt sgn sigmoid sign signbit sin sinc sinh sort sqrt square sub tan tanh topk trunc where xlogy
    airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 chebyshev_polynomial_t chebyshev_polynomial_u
    chebyshev_polynomial_v chebyshev_polynomial_w entr erfcx expit gammainc gammaincc gammaln
    hermite_polynomial_h hermite_polynomial_he i0e i1 i1e laguerre_polynomial_l legendre_polynomial_p
    log_ndtr modified_bessel_i0 modified_bessel_i1 modified_bessel_k0 modified_bessel_k1 ndtri psi
    scaled_modified_bessel_k0 scaled_modified_bessel_k1 shifted_chebyshev_polynomial_t
    shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w
    spherical_bessel_j0 xlog1py zeta""".split())
#: * the joins and the gathers, which read each element elsewhere than they write it: an ``out``
#:   sharing any memory with an operand, itself too (``cat([a, b], out=a)``, ``gather(x, 0, i, out=x)``);
_JOINS_AND_GATHERS = frozenset("""cat concat concatenate stack hstack vstack dstack column_stack row_stack
    index_select gather take take_along_dim masked_select nonzero cross kron""".split())
#: * the scatters, which copy their input into ``out`` and then scatter into it: the input as an
#:   elementwise function's, the source and the index as a gather's;
_SCATTERS = frozenset("scatter scatter_add scatter_reduce index_add index_copy index_reduce".split())
#: * ``beta * input + product``: the input as an elementwise function's (the product's factors are not
#:   checked: PyTorch's answer for an ``out`` overlapping them is its BLAS's, the engine's the product's).
_ADD_PRODUCTS = frozenset("addmm addmv addr baddbmm addbmm".split())
#: * and, beside the elementwise check, the input read elsewhere than it is written -- ``kthvalue``'s
#:   selection, ``outer``'s first vector read as a column -- against the first ``out`` as a gather's:
#:   ``kthvalue(x, 5, out=(x, i))`` (its kernel's ``assert_no_overlap``) and ``outer(v, w, out=v)`` are
#:   refused, where ``sort``, ``topk``, ``mode``, ``median`` and ``max(x, dim)`` take ``out=(x, i)``.
_INPUT_AS_A_GATHERS = frozenset(("kthvalue", "outer"))

#: An ``out`` that is an expanded view (``x.expand(3)``: its elements share memory) cannot be written
#: one element at a time.  PyTorch's TensorIterator (the elementwise functions, binary ``max``/``min``)
#: and the kernels of the selections and scatters below refuse it before they resize it, whatever its
#: shape; the other kernels (reductions, sorts, scans, products, joins, creations) resize it first into
#: a fresh buffer and write there.  The engine resized it too, so ``mg.add(a, b, out=e)`` answered
#: where PyTorch refuses (read off torch 2.13: every out sample of ``tests/data/torch_out_samples.json``
#: with an expanded ``out`` of another length, ``tests/test_out_expanded_view.py``).
_REFUSE_EXPANDED_OUT = (_ELEMENTWISE - frozenset(
    "bernoulli cumprod cumsum kthvalue logcumsumexp max min mode msort normal renorm sort topk".split())) | \
    frozenset("addr complex polar index_select take masked_select nonzero scatter scatter_add scatter_reduce".split())


def _refuse_expanded_out(name: str, outs: tuple, args: tuple) -> None:
    """Refuse, as PyTorch does, an expanded view given as ``out`` where its kernel judges ``out`` first
    (see above); ``max``/``min`` only between two tensors (PyTorch's ``maximum``)."""
    binary = name in ("max", "min") and len(args) > 1 and isinstance(args[1], Tensor)
    if name in _REFUSE_EXPANDED_OUT or binary:
        for out in outs:
            out._refuse_overlapping_write(name)


def _refuse_overlap(name: str, outs: tuple, result: Any, args: tuple, kwargs: dict) -> None:
    """Refuse, as PyTorch does, an ``out`` sharing memory with an operand it would read (see above)."""
    operands = [*args, *kwargs.values()] if args or "input" not in kwargs else \
        [kwargs["input"], *(v for k, v in kwargs.items() if k != "input")]
    if not operands or name in ("max", "min") and not isinstance(result, tuple) and result.ndim == 0:
        return  # (a creation function's: nothing read; max(x)'s over all elements: PyTorch's own kernel)
    first, rest = operands[0], [item for each in operands[1:]
                                for item in (each if isinstance(each, (list, tuple)) else (each,))]
    for out, each in zip(outs, result if isinstance(result, tuple) else (result,)):
        if name in _JOINS_AND_GATHERS:
            refuse_overlap(name, out, tuple(t for t in (first, *rest) if not _broadcast(name, t, each)))
        elif name in _SCATTERS:
            refuse_partial_overlap(name, out, first)
            refuse_overlap(name, out, tuple(rest))
        elif name in _ADD_PRODUCTS and not _broadcast(name, first, each):
            refuse_partial_overlap(name, out, first)
        elif name in _ELEMENTWISE:
            if name in _INPUT_AS_A_GATHERS and out is outs[0]:
                refuse_overlap(name, out, (first,))
            for operand in (first, *rest):
                refuse_partial_overlap(name, out, operand)


def _broadcast(name: str, operand: Any, result: Tensor) -> bool:
    """Whether PyTorch reads ``operand`` broadcast to the result's shape, through an expanded view (whose
    overlap it does not judge): ``addmm``'s input, ``take_along_dim``'s operands.  (The elementwise
    functions judge their operands before broadcasting them.)"""
    return (name in _ADD_PRODUCTS or name == "take_along_dim") and isinstance(operand, Tensor) \
        and operand.numel() < result.numel()


def _check_dtype(name: str, rule: OutRule | str, result: Any, out: Any, asked: Any) -> None:
    """Refuse, as PyTorch does, a result of dtype ``result`` written into ``out``'s dtype."""
    if result != out and rule in (REDUCTION, MEAN) and asked is not None:
        raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(asked)}, but got "
                           f"{cpp_type_name(out)} instead")
    (rule if isinstance(rule, OutRule) else CAST).check(name, result, out)


def _outs(name: str, out: Any) -> tuple:
    """``out`` as the tuple of tensors it is: one, or a tuple of them for a function of several
    results (``sort(x, out=(values, indices))``)."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if not all(isinstance(item, Tensor) for item in outs):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    return outs


def _check_out(name: str, outs: tuple, args: tuple, kwargs: dict) -> None:
    """Nothing that requires grad where grad mode would have to record the write into ``outs``."""
    operands = [*args, *kwargs.values()]
    operands += [item for arg in operands if isinstance(arg, (list, tuple)) for item in arg]  # cat's, stack's
    tensors = [t for t in (*outs, *operands) if isinstance(t, Tensor)]
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
        over_all = len(args) < 2 and not {"dim", "axis"} & kwargs.keys()  # (PyTorch's mean.dtype_out: its words)
        (_MEAN_OVER_ALL if over_all else CAST).check("mean", x.dtype, out.dtype)
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
        if tuple(out.shape) != shape and rule in (RANGE, SPACED) and out.numel() == result.numel():
            result = result.reshape(tuple(out.shape))
        if tuple(out.shape) != tuple(result.shape):
            if out.numel() and rule == RANGE:
                warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is "
                              f"{out.numel()} which does not match the computed number of elements "
                              f"{result.numel()}. Note that this may occur as a result of rounding error. The out "
                              f"tensor will be resized to a tensor of shape ({result.numel()},).",
                              UserWarning, stacklevel=stacklevel_outside_the_engine())
            elif out.numel() and rule not in (CREATION, SPACED):
                warnings.warn(f"An output with one or more elements was resized since it had shape "
                              f"{list(out.shape)}, which does not match the required output shape {list(shape)}. "
                              "This behavior is deprecated, and in a future PyTorch release outputs will not be "
                              "resized unless they have zero elements. You can explicitly reuse an out tensor t "
                              "by resizing it, inplace, to zero elements with t.resize_(0).",
                              UserWarning, stacklevel=stacklevel_outside_the_engine())
            out.set_(Tensor.constant(out._device.xp.empty(shape, dtype=out._data.dtype), out._device))
        out.copy_(result)
    return out


def _write_all(name: str, rules: Any, out: Any, result: Any, asked: Any) -> Any:
    """Each result written into its ``out``: one tensor, or a tuple (a named one stays named, in its
    function's ``<name>_out`` class as PyTorch's: ``sort(x, out=(v, i)).values is v``), each result
    under its rule (``rules`` one for all, or a tuple of one each)."""
    many, given_many = isinstance(result, tuple), isinstance(out, (tuple, list))
    results, outs = (result if many else (result,)), (tuple(out) if given_many else (out,))
    if many != given_many or len(outs) != len(results):
        wanted = f"tuple of {len(results)} Tensors" if many else "Tensor"
        given = f"{type(out).__name__} of {len(outs)} Tensors" if given_many else "Tensor"
        raise TypeError(f"{name}(): argument 'out' must be {wanted}, not {given}")
    rules = (rules,) * len(results) if isinstance(rules, (OutRule, str)) else rules
    for each, target, dtypes in zip(results, outs, rules):  # (every check before any write)
        _check_dtype(name, dtypes, each.dtype, target.dtype, asked)
    written = tuple(_write(target, each, dtypes) for each, target, dtypes in zip(results, outs, rules))
    if not many:
        return written[0]
    if not hasattr(result, "_fields"):
        return written
    # PyTorch answers out= in the function's out class (torch.return_types.max_out for max's), where there is one
    return getattr(type(result), "_answer_given_out", type(result))(*written)


def with_out(name: str, function: Callable[..., Any], rules: Any = CAST, *,
             pair: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """``function`` taking PyTorch's ``out=`` as well (None: the function itself), ``name`` as its errors
    say it (``"add"``, ``"aten::zeros"``) and ``rules`` for the dtypes ``out`` may have: an
    :class:`OutRule` (or one of the flows ``REDUCTION``, ``MEAN``, ``CREATION``, ``RANGE``, ``SPACED``), for a
    function of several results a tuple of one rule each, or a function of the call's ``(args, kwargs)``
    that picks the rule.  ``pair``: the function a tuple ``out=(values, indices)`` calls, where
    ``function`` in its own spelling answers one tensor (NumPy's ``sort(x)`` and ``max(x, 1)``; no NumPy
    spelling has a tuple ``out``, so it asks for PyTorch's pair)."""

    @functools.wraps(function)
    def with_out_argument(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return function(*args, **kwargs)
        outs = _outs(name, out)
        if kwargs.get("pin_memory") is True:  # the values go into out's memory, as it is: PyTorch ignores it
            kwargs = {**kwargs, "pin_memory": False}
        _check_out(name, outs, args, kwargs)
        _refuse_expanded_out(name, outs, args)
        asked = None if kwargs.get("dtype") is None else as_dtype(kwargs["dtype"])  # the caller's own
        # (a rule that depends on the call: clamp's, on whether a bound is a tensor)
        chosen = rules(args, kwargs) if callable(rules) else rules
        if chosen in (CREATION, RANGE, SPACED):
            kwargs = _created_in_out(outs[0], kwargs)
        elif chosen in (REDUCTION, MEAN) and asked is None:
            kwargs = _reduced_in_out(chosen, outs[0], args, kwargs)
        answer = pair if pair is not None and isinstance(out, (tuple, list)) else function
        result = answer(*args, **kwargs)
        _refuse_overlap(name, outs, result, args, kwargs)  # (before a single element is written)
        return _write_all(name, chosen, out, result, asked)

    with_out_argument.__signature__ = _with_out_parameter(function)  # type: ignore[attr-defined]
    return with_out_argument


def _with_out_parameter(function: Callable[..., Any]) -> inspect.Signature:
    """``function``'s signature with ``out=None`` among its keywords (docs/api.md shows it)."""
    signature = inspect.signature(function)
    params = [p for p in signature.parameters.values() if p.name != "out"]
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    tail = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    return signature.replace(parameters=[p for p in params if p not in tail] + [out] + tail)
